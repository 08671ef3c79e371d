/**
 * koa-model-api's MikroORM 7 adapter: `import { MikroOrmAdapter } from 'koa-model-api/adapters/mikro-orm'`.
 * @module koa-model-api/adapters/mikro-orm
 */
export { MikroOrmAdapter, type MikroOrmAdapterOptions } from './adapter.js';
export { boundedWaits, type WaitLimits } from './bounded-waits.js';
export type { MikroOrmConnectOptions } from './connect.js';
export { applyModelConventions } from './conventions.js';
export type { AnyMikroORM } from './describe.js';
export { PluralTableNamingStrategy } from './naming-strategy.js';
export { mikroOrmOptions } from './options.js';
export type { NamedStatements } from './statements.js';
