/**
 * The account routes in the OpenAPI document pass the linters API teams run (Spectral's
 * `spectral:oas` and Redocly's `recommended`): no finding points into their operations, and each
 * names its problem codes and its (lack of) security.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { mountAccountRoutes } from '../../../lib/auth/account/account-setup.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { ConsoleMailer } from '../../../lib/auth/mail/mailer.js';
import { authEntities } from './support/entities.js';
import { BASE_OPTIONS, memoryLogger } from './support/harness.js';

const PATHS = ['/forgot-password', '/reset-password', '/verify-email/request', '/verify-email'];
/** JSON-pointer and dotted forms of the account paths, to pick the findings about them. */
const MARKERS = PATHS.flatMap((path) => [`/paths/${path.replaceAll('/', '~1')}`, `paths.${path}`]);

describe('the account routes in the OpenAPI document', () => {
  let adapter: MikroOrmAdapter;
  let document: Record<string, unknown>;
  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: authEntities,
      schema: 'create',
    });
    const logger = memoryLogger();
    const app = new Application({ title: 'account', adapter, logger, health: false });
    const auth = new AuthRouter(BASE_OPTIONS);
    auth.register_routes(app);
    mountAccountRoutes(app, auth, { mailer: new ConsoleMailer(logger) });
    document = app.openapi.document() as Record<string, unknown>;
  });
  after(() => adapter?.close());

  it('has no Spectral or Redocly finding in the account operations', async () => {
    const text = JSON.stringify(document, null, 2);
    const config = await createConfig({ extends: ['recommended'] });
    const redocly = (await lintFromString({ source: text, absoluteRef: '/openapi.json', config })).map(
      (problem) => `redocly ${problem.ruleId} at ${problem.location[0]?.pointer ?? ''}: ${problem.message}`,
    );
    const linter = new spectralCore.Spectral();
    linter.setRuleset({ extends: [[oas as never, 'recommended']] });
    const spectral = (
      await linter.run(new spectralCore.Document(text, spectralParsers.Json, '/openapi.json'))
    ).map((result) => `spectral ${String(result.code)} at ${result.path.join('.')}: ${result.message}`);
    const ours = [...redocly, ...spectral].filter((finding) =>
      MARKERS.some((marker) => finding.includes(marker)),
    );
    assert.deepEqual(ours, []);
  });

  it('documents each route with its problem codes; only /verify-email/request may take a token', () => {
    const paths = document.paths as Record<string, { post: Record<string, unknown> }>;
    for (const path of PATHS) assert.ok(paths[path]?.post !== undefined, path);
    const description = (path: string) => JSON.stringify(paths[path]?.post);
    assert.match(description('/reset-password'), /invalid_reset_token/);
    assert.match(description('/verify-email'), /invalid_verification_token/);
    assert.deepEqual(paths['/forgot-password']?.post.security, []);
    assert.deepEqual(paths['/verify-email/request']?.post.security, [{ OAuth2PasswordBearer: [] }, {}]);
    assert.ok('429' in ((paths['/forgot-password']?.post.responses ?? {}) as object));
  });
});
