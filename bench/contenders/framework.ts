/**
 * Contender "framework": the example application on koa-model-api, shaped like the README's example
 * (JWT, ownership policies). The `open` profile serves public reads; `secure` requires a token on every
 * posts route with owner-or-admin on GET/PUT/DELETE. Users and tags have routers of their own (reads
 * as the profile allows them, writes for admins), so that posts may include them (`include=owner,tags`).
 * `BENCH_ADAPTER_MODE=plain` runs the adapter in plain mode (MikroORM's public API only): the contender
 * "framework-plain".
 */
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, CrudRouter } from '../../lib/index.js';
import { FrameworkModel } from '../../lib/model/framework-model.js';
import { Post, Tag, User } from './framework/entities.js';
import { adapterMode, JWT_AUDIENCE, JWT_ISSUER, POOL_MAX, readEnv, TOKEN_TTL_SECONDS } from './shared/env.js';
import { modelCount, sweepModels } from './shared/sweep.js';
import { startTelemetry } from './shared/telemetry.js';

const telemetry = startTelemetry();
const env = readEnv();
// The route sweep's extra models (none unless BENCH_MODELS > 1).
const extra = sweepModels(
  modelCount(),
  () =>
    class extends FrameworkModel {
      declare id: number;
      declare title: string;
    },
);
const adapter = await MikroOrmAdapter.connect({
  url: env.databaseUrl,
  entities: [User, Post, Tag, ...extra.map((sweep) => sweep.schema)],
  pool: { max: POOL_MAX },
  mode: adapterMode(),
});
const app = new Application({ title: 'bench', adapter });
const auth = new AuthRouter({
  user_model: User,
  secret: env.jwtSecret,
  issuer: JWT_ISSUER,
  audience: JWT_AUDIENCE,
  token_lifetime: TOKEN_TTL_SECONDS,
  // The seeded hashes have cost 10: the same cost keeps logins from being rehashed ("upgraded") on every call.
  bcrypt_cost: 10,
  // The load generator logs in from one address at hundreds of attempts per minute; no contender throttles.
  throttle: false,
});
auth.register_routes(app);
// Registered before posts, so that a router matching routes in order would meet them all first.
for (const sweep of extra) new CrudRouter({ model: sweep.model }).register_routes(app);
const ownerOrAdmin = auth.owner_or_admin(Post);
const adminOnly = auth.admin_only();
// The targets of `include=owner,tags` have routers of their own, whose rules decide what an embedded
// user or tag shows (never a hidden field) and who may read it: whoever may read posts in this profile.
for (const model of [User, Tag]) {
  new CrudRouter({
    model,
    secure: env.profile === 'secure',
    auth_dependency: auth.get_auth_dependency(),
    policy: { POST: adminOnly, PUT: adminOnly, DELETE: adminOnly },
  }).register_routes(app);
}
new CrudRouter(
  env.profile === 'secure'
    ? {
        model: Post,
        secure: true,
        auth_dependency: auth.get_auth_dependency(),
        policy: { GET: ownerOrAdmin, PUT: ownerOrAdmin, DELETE: ownerOrAdmin },
      }
    : {
        model: Post,
        auth_dependency: auth.get_auth_dependency(),
        // Reads are public; writes still need the owner (a policy authenticates the request by itself).
        policy: { PUT: ownerOrAdmin, DELETE: ownerOrAdmin },
      },
).register_routes(app);

// The secure profile also serves the same reads without a token under /open, so that the auth_get
// scenario can time both in one process, alternating (the paired auth cost; scenarios/shared.ts).
if (env.profile === 'secure') new CrudRouter({ model: Post, prefix: '/open' }).register_routes(app);

await app.listen(env.port, '127.0.0.1');
telemetry.ready();
