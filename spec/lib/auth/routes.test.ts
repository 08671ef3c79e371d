/** `/register`, `/login` and `/admin/{id}/make-admin` over HTTP, on every database target. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { serve } from '../../support/http.js';
import { User } from './support/entities.js';
import {
  type AuthFixture,
  adminWithToken,
  BASE_OPTIONS,
  call,
  loginToken,
  memoryLogger,
  registerUser,
  startAuthApp,
  userWithToken,
} from './support/harness.js';

for (const target of databaseTargets()) {
  describe(`auth routes on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    before(async () => {
      fx = await startAuthApp(target);
    });
    after(() => fx?.close());

    describe('POST /register', () => {
      it("points Location where the app serves users, under the users router's prefix", async () => {
        const app = new Application({
          title: 'prefixed',
          adapter: fx.adapter,
          logger: memoryLogger(),
          health: false,
        });
        const auth = new AuthRouter(BASE_OPTIONS);
        // Registered before the users router: the Location is worked out per request.
        auth.register_routes(app);
        new CrudRouter({
          model: User,
          prefix: '/api/v1',
          secure: true,
          auth_dependency: auth.get_auth_dependency(),
        }).register_routes(app);
        const server = await serve(app.callback());
        try {
          const response = await call(server, 'POST', '/register', {
            json: { username: 'prefixed', email: 'prefixed@example.com', password: 'prefixed-password' },
          });
          assert.equal(response.status, 201);
          const location = response.headers.get('location');
          assert.equal(location, `/api/v1/users/${response.body.id}`);
          const token = await loginToken(server, 'prefixed', 'prefixed-password');
          const user = await call(server, 'GET', location ?? '', { token });
          assert.equal(user.status, 200);
          assert.equal(user.body.username, 'prefixed');
        } finally {
          await server.close();
        }
      });

      it('sends no Location when no route serves users (it would name a path that answers 404)', async () => {
        const app = new Application({
          title: 'no users router',
          adapter: fx.adapter,
          logger: memoryLogger(),
          health: false,
        });
        new AuthRouter(BASE_OPTIONS).register_routes(app);
        const server = await serve(app.callback());
        try {
          const response = await call(server, 'POST', '/register', {
            json: { username: 'unrouted', email: 'unrouted@example.com', password: 'unrouted-password' },
          });
          assert.equal(response.status, 201);
          assert.equal(response.headers.get('location'), null);
          assert.equal((await call(server, 'GET', `/users/${response.body.id}`)).status, 404);
        } finally {
          await server.close();
        }
      });

      it('creates the user: 201, Location, the user without secrets, no-store', async () => {
        const response = await call(fx.server, 'POST', '/register', {
          json: { username: 'alice', email: 'alice@example.com', password: 'alice-password' },
        });
        assert.equal(response.status, 201);
        const id = response.body.id;
        assert.equal(typeof id, 'number');
        assert.equal(response.headers.get('location'), `/users/${id}`);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.deepEqual(response.body, {
          id,
          username: 'alice',
          email: 'alice@example.com',
          age: 18,
          verified: false,
          is_admin: false,
        });
      });

      it('answers 409 for a username or email already taken', async () => {
        const first = await registerUser(fx.server);
        const sameName = await call(fx.server, 'POST', '/register', {
          json: { username: first.username, email: 'other@example.com', password: 'password-1' },
        });
        assert.equal(sameName.status, 409);
        assert.equal(sameName.body.code, 'conflict');
        const sameEmail = await call(fx.server, 'POST', '/register', {
          json: { username: 'someone-else', email: first.email, password: 'password-1' },
        });
        assert.equal(sameEmail.status, 409);
      });

      it('validates against the user model: 422 with one entry per field', async () => {
        const response = await call(fx.server, 'POST', '/register', { json: { username: 7, age: 'old' } });
        assert.equal(response.status, 422);
        const paths = (response.body.errors as { path: string }[]).map((error) => error.path).sort();
        assert.deepEqual(paths, ['age', 'email', 'password', 'username']);
      });

      it('refuses passwords under 8 characters or over 72 bytes of UTF-8', async () => {
        for (const password of ['short7!', 'é'.repeat(37), 'a'.repeat(73)]) {
          const response = await call(fx.server, 'POST', '/register', {
            json: { username: `pw${password.length}`, email: `pw${password.length}@example.com`, password },
          });
          assert.equal(response.status, 422, password);
          assert.deepEqual(
            (response.body.errors as { path: string }[]).map((error) => error.path),
            ['password'],
          );
        }
        const longest = await call(fx.server, 'POST', '/register', {
          json: { username: 'pw72', email: 'pw72@example.com', password: 'é'.repeat(36) },
        });
        assert.equal(longest.status, 201, '72 bytes is accepted');
        assert.ok((await loginToken(fx.server, 'pw72', 'é'.repeat(36))).length > 0);
      });

      it('never makes an admin, never takes a hash or a key: such fields are dropped', async () => {
        const response = await call(fx.server, 'POST', '/register', {
          json: {
            username: 'mallory',
            email: 'mallory@example.com',
            password: 'mallory-password',
            id: 999_999,
            hashed_password: '$2b$04$abcdefghijklmnopqrstuuKyCZ1EY2yYlO4qYHZbP5R3Jf2S9nZyS',
            is_admin: true,
            is_superuser: true,
            is_staff: true,
            is_master: true,
            constructor: { prototype: { is_admin: true } },
          },
        });
        assert.equal(response.status, 201);
        assert.equal(response.body.is_admin, false);
        assert.notEqual(response.body.id, 999_999);
        assert.equal('hashed_password' in response.body, false);
        const token = await loginToken(fx.server, 'mallory', 'mallory-password');
        const tag = await call(fx.server, 'POST', '/tags', { token, json: { name: 'mallory' } });
        assert.equal(tag.status, 403, 'still not an admin');
      });

      it('refuses a __proto__ key without effect', async () => {
        const response = await call(fx.server, 'POST', '/register', {
          headers: { 'content-type': 'application/json' },
          body: '{"username":"proto","email":"proto@example.com","password":"proto-password","__proto__":{"is_admin":true}}',
        });
        assert.equal(response.status, 400, 'the body parser refuses __proto__');
        const stored = await fx.adapter.findBy(fx.adapter.openSession(), User, 'username', 'proto');
        assert.equal(stored, undefined);
        assert.equal(({} as Record<string, unknown>).is_admin, undefined, 'Object.prototype untouched');
      });

      it('with strict, names every refused field in a 422', async () => {
        const strict = await fx.variant({ strict: true });
        const response = await call(strict.server, 'POST', '/register', {
          json: {
            username: 'strict',
            email: 'strict@example.com',
            password: 'strict-password',
            id: 5,
            hashed_password: 'x',
            is_admin: true,
            is_superuser: true,
            is_staff: true,
            is_master: true,
            constructor: 1,
          },
        });
        assert.equal(response.status, 422);
        const paths = (response.body.errors as { path: string }[]).map((error) => error.path).sort();
        assert.deepEqual(paths, [
          'constructor',
          'hashed_password',
          'id',
          'is_admin',
          'is_master',
          'is_staff',
          'is_superuser',
        ]);
      });

      it('takes JSON only (415), and answers 400 for malformed JSON', async () => {
        const form = await call(fx.server, 'POST', '/register', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'username=f&email=f%40example.com&password=password-1',
        });
        assert.equal(form.status, 415);
        const broken = await call(fx.server, 'POST', '/register', {
          headers: { 'content-type': 'application/json' },
          body: '{"username":',
        });
        assert.equal(broken.status, 400);
      });

      it('lets exactly one of 20 concurrent registrations of one username through', async () => {
        const attempts = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            call(fx.server, 'POST', '/register', {
              json: { username: 'racer', email: `racer${i}@example.com`, password: 'racer-password' },
            }),
          ),
        );
        const statuses = attempts.map((attempt) => attempt.status).sort();
        assert.deepEqual(statuses, [201, ...Array(19).fill(409)]);
        const session = fx.adapter.openSession();
        const rows = await fx.adapter.list(session, User, {
          filters: [{ field: 'username', op: '$eq', value: 'racer' }],
          sort: [],
          limit: 100,
          offset: 0,
          withTotal: true,
        });
        assert.equal(rows.total, 1);
      });
    });

    describe('POST /login', () => {
      it('returns a bearer token for JSON credentials, with no-store', async () => {
        const user = await registerUser(fx.server);
        const response = await call(fx.server, 'POST', '/login', {
          json: { username: user.username, password: 'password-1' },
        });
        assert.equal(response.status, 200);
        assert.deepEqual(Object.keys(response.body).sort(), [
          'access_token',
          'expires_in',
          'refresh_expires_in',
          'refresh_token',
          'token_type',
        ]);
        assert.equal(response.body.token_type, 'bearer');
        assert.equal(response.body.expires_in, 3600);
        assert.equal(response.headers.get('cache-control'), 'no-store');
        const me = await call(fx.server, 'GET', `/users/${user.id}`, {
          token: String(response.body.access_token),
        });
        assert.equal(me.status, 200);
      });

      it('takes the OAuth2 password form as Swagger UI sends it', async () => {
        const user = await registerUser(fx.server);
        const body = new URLSearchParams({
          grant_type: 'password',
          username: user.username,
          password: 'password-1',
          scope: '',
          client_id: '',
        });
        const response = await call(fx.server, 'POST', '/login', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
        assert.equal(response.status, 200);
        assert.equal(response.body.token_type, 'bearer');
        const other = new URLSearchParams({
          grant_type: 'client_credentials',
          username: user.username,
          password: 'password-1',
        });
        const refused = await call(fx.server, 'POST', '/login', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: other.toString(),
        });
        assert.equal(refused.status, 422);
      });

      it('gives the same 401 for an unknown username and a wrong password', async () => {
        const user = await registerUser(fx.server);
        const wrong = await call(fx.server, 'POST', '/login', {
          json: { username: user.username, password: 'wrong-password' },
        });
        const unknown = await call(fx.server, 'POST', '/login', {
          json: { username: 'nobody-at-all', password: 'wrong-password' },
        });
        assert.equal(wrong.status, 401);
        assert.equal(unknown.status, 401);
        assert.deepEqual(wrong.body, unknown.body);
        assert.equal(wrong.body.code, 'invalid_credentials');
        assert.equal(wrong.headers.get('www-authenticate'), 'Bearer');
        assert.equal(wrong.headers.get('cache-control'), 'no-store');
      });

      it('takes about the same time for an unknown username as for a wrong password', async () => {
        // A user hashed with the router's own cost: the dummy hash of an unknown user has that cost too.
        const timed = await fx.variant({ bcrypt_cost: 9, throttle: false });
        const registered = await call(timed.server, 'POST', '/register', {
          json: { username: 'timed8', email: 'timed8@example.com', password: 'password-1' },
        });
        assert.equal(registered.status, 201);
        // CPU time of this process (bcrypt runs on its thread pool), not wall time: other processes
        // running at the same time do not disturb it. Interleaved, compared by median.
        const once = async (username: string): Promise<number> => {
          const start = process.cpuUsage();
          await call(timed.server, 'POST', '/login', { json: { username, password: 'wrong-password' } });
          const used = process.cpuUsage(start);
          return used.user + used.system;
        };
        const known: number[] = [];
        const unknown: number[] = [];
        for (let i = 0; i < 9; i++) {
          known.push(await once('timed8'));
          unknown.push(await once('nobody-timed'));
        }
        const median = (values: number[]) =>
          [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
        const ratio = median(unknown) / median(known);
        assert.ok(ratio > 0.5 && ratio < 2, `unknown/known median CPU time ratio ${ratio.toFixed(2)}`);
      });

      it('refuses missing fields and over-long passwords with 422', async () => {
        const missing = await call(fx.server, 'POST', '/login', { json: { username: 'x' } });
        assert.equal(missing.status, 422);
        assert.deepEqual(missing.body.errors, [{ path: 'password', message: 'is required' }]);
        const long = await call(fx.server, 'POST', '/login', {
          json: { username: 'x', password: 'a'.repeat(73) },
        });
        assert.equal(long.status, 422);
      });

      it('treats a username no column can hold as unknown (no database error)', async () => {
        for (const username of ['a'.repeat(5000), 'nul\u0000byte']) {
          const response = await call(fx.server, 'POST', '/login', {
            json: { username, password: 'password-1' },
          });
          assert.equal(response.status, 401);
        }
      });

      it('throttles per username: 429 with Retry-After, even for the right password', async () => {
        const user = await registerUser(fx.server);
        for (let i = 0; i < 5; i++) {
          const response = await call(fx.server, 'POST', '/login', {
            json: { username: user.username, password: 'wrong-password' },
          });
          assert.equal(response.status, 401);
        }
        const blocked = await call(fx.server, 'POST', '/login', {
          json: { username: user.username, password: 'password-1' },
        });
        assert.equal(blocked.status, 429);
        assert.equal(blocked.body.code, 'too_many_requests');
        assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
        const other = await registerUser(fx.server);
        assert.ok(
          (await loginToken(fx.server, other.username)).length > 0,
          'other usernames are not affected',
        );
      });

      it('throttles per client address, ignoring X-Forwarded-For (proxy is off)', async () => {
        const limited = await fx.variant({ throttle: { address: { attempts: 3, window: 60 } } });
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const response = await call(limited.server, 'POST', '/login', {
            headers: { 'x-forwarded-for': `203.0.113.${i}` },
            json: { username: `spray${i}`, password: 'wrong-password' },
          });
          statuses.push(response.status);
        }
        assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
      });

      it('counts an IPv6 client with the rest of its /64, and a dual-stack IPv4 peer as IPv4', async () => {
        const limited = await fx.variant(
          { throttle: { address: { attempts: 3, window: 60 } } },
          { proxy: true },
        );
        const attempt = async (address: string, i: number): Promise<number> =>
          (
            await call(limited.server, 'POST', '/login', {
              headers: { 'x-forwarded-for': address },
              json: { username: `v6spray${i}`, password: 'wrong-password' },
            })
          ).status;
        const block = [
          '2001:db8:7:1::1',
          '2001:db8:7:1:ffff:0:0:2',
          '2001:0db8:0007:0001::3',
          '2001:db8:7:1::4',
        ];
        const statuses: number[] = [];
        for (const [i, address] of block.entries()) statuses.push(await attempt(address, i));
        assert.deepEqual(statuses, [401, 401, 401, 429], 'one /64 is one client');
        assert.equal(await attempt('2001:db8:7:2::1', 9), 401, 'the next /64 is another');
        const mapped: number[] = [];
        for (let i = 0; i < 3; i++) mapped.push(await attempt('198.51.100.7', 20 + i));
        mapped.push(await attempt('::ffff:198.51.100.7', 30));
        assert.deepEqual(mapped, [401, 401, 401, 429], '::ffff:198.51.100.7 is 198.51.100.7');
      });

      it('re-hashes a password stored with an outdated cost or scheme on login', async () => {
        const user = await registerUser(fx.server);
        const storedHash = async (): Promise<string> =>
          String(
            (await fx.adapter.findBy(fx.adapter.openSession(), User, 'username', user.username))
              ?.hashed_password,
          );
        assert.match(await storedHash(), /^\$2b\$04\$/);
        const stronger = await fx.variant({ bcrypt_cost: 5 });
        await loginToken(stronger.server, user.username);
        assert.match(await storedHash(), /^\$2b\$05\$/);
        const argon = await fx.variant({ password_hasher: 'argon2id', bcrypt_cost: undefined });
        await loginToken(argon.server, user.username);
        assert.match(await storedHash(), /^\$argon2id\$/);
        assert.ok(
          (await loginToken(fx.server, user.username)).length > 0,
          'the old configuration still verifies argon2id',
        );
        assert.match(await storedHash(), /^\$2b\$04\$/, 'and moves it back to its own scheme');
      });
    });

    describe('POST /admin/{id}/make-admin', () => {
      it('needs a token (401) and an admin (403)', async () => {
        const user = await userWithToken(fx.server);
        const anonymous = await call(fx.server, 'POST', `/admin/${user.id}/make-admin`);
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
        const self = await call(fx.server, 'POST', `/admin/${user.id}/make-admin`, { token: user.token });
        assert.equal(self.status, 403);
      });

      it('grants the flag, idempotently, and returns the user', async () => {
        const admin = await adminWithToken(fx);
        const user = await registerUser(fx.server);
        for (let i = 0; i < 2; i++) {
          const response = await call(fx.server, 'POST', `/admin/${user.id}/make-admin`, {
            token: admin.token,
          });
          assert.equal(response.status, 200);
          assert.deepEqual(response.body, { ...user, is_admin: true });
          assert.equal(response.headers.get('cache-control'), 'no-store');
        }
      });

      it('answers 404 for an unknown or impossible id, and 405 for another method', async () => {
        const admin = await adminWithToken(fx);
        assert.equal(
          (await call(fx.server, 'POST', '/admin/987654/make-admin', { token: admin.token })).status,
          404,
        );
        assert.equal(
          (await call(fx.server, 'POST', '/admin/not-a-number/make-admin', { token: admin.token })).status,
          404,
        );
        const get = await call(fx.server, 'GET', '/admin/1/make-admin', { token: admin.token });
        assert.equal(get.status, 405);
        assert.match(get.headers.get('allow') ?? '', /POST/);
      });
    });
  });
}
