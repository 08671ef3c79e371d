/**
 * `koa-model-api/conformance`: the HTTP-level suite every `OrmAdapter` must pass. It serves the
 * eight conformance models through `Application` + `CrudRouter` and checks, over real HTTP, what
 * docs/adapters.md ("The contract", "Relations", "Errors to map") promises: status codes, bodies,
 * defaults, keys, constraints, list paging/sorting/filtering, relations (`include=`, many-to-many
 * writes, filters and sort through a many-to-one) and problem details.
 *
 * To run it from an adapter package:
 * 1. Map the eight models of `ConformanceModels` (shapes and relations in its documentation) with
 *    your ORM; every class extends `FrameworkModel`, and `Tag` declares
 *    `static __tablename__ = 'labels'`. The adapter describes their collections and implements
 *    `links()` (docs/adapters.md, "Relations").
 * 2. Write a target whose `setup()` creates a fresh, empty schema (a unique database name, so
 *    parallel runs never collide), builds the adapter over it and returns `teardown` that closes
 *    the adapter and drops the schema. The suite never closes the adapter itself.
 * 3. In a test file, call `runConformanceSuite(target)` at top level and run it with
 *    `node --test`. Skip a case only by naming it with a reason (`skip: { 'case-name': 'why' }`);
 *    an adapter without `links()` skips `collectionCases`.
 *
 * The suite calls the adapter directly to seed rows (`openSession` + `create`) and, in the
 * `adapter-*` cases, for what HTTP cannot see (`findBy`, hidden fields in rows, `update`/`delete` of
 * a missing key, `ping`); everything else goes through HTTP on 127.0.0.1.
 * @module koa-model-api/conformance
 */
export { type ConformanceCaseName, collectionCases, conformanceCases } from './names.js';
export { runConformanceSuite } from './run.js';
export type { ConformanceEnvironment, ConformanceModels, ConformanceTarget } from './types.js';
