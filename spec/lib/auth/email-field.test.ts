/**
 * The address the account routes mail to is the address whose change needs the password (security
 * review 9): with `email_field` naming another field than `email`, a stolen bearer token changed
 * the address without `current_password`, `/forgot-password` then mailed the reset link to the
 * new one, and `verified` stayed true. Both ways of configuring the field are covered: a
 * standalone `mountAccountRoutes(app, auth, { email_field })` (which also brings its
 * `require_verified_email` to `/login`) and the `account` option of `AuthRouter`.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import type { AccountService } from '../../../lib/auth/account/account-service.js';
import { mountAccountRoutes } from '../../../lib/auth/account/account-setup.js';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { ConsoleMailer } from '../../../lib/auth/mail/mailer.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../lib/types.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { call, type Json, memoryLogger, SECRET } from './support/harness.js';

/** Table `addressed_users`: the address is `email_address`, and there is no `email`. */
@Entity({ tableName: 'addressed_users' })
class AddressedUser extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' }) id!: number;
  @Property({ type: 'string', length: 50, unique: true }) username!: string;
  @Property({ type: 'string', length: 254, unique: true }) email_address!: string;
}

/** Table `contact_users`: an `email` of the profile, and `contact_email`, the address mailed to. */
@Entity({ tableName: 'contact_users' })
class ContactUser extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' }) id!: number;
  @Property({ type: 'string', length: 50, unique: true }) username!: string;
  @Property({ type: 'string', length: 254, unique: true }) email!: string;
  @Property({ type: 'string', length: 254, nullable: true }) contact_email?: string | null;
}

const LIMITS = { address: { attempts: 10_000, window: 60 } };

interface Served {
  readonly server: TestServer;
  readonly account: AccountService;
}

/** The users routes of `model` as the review's app has them (secured, owner or admin). */
function usersRoutes(app: Application, auth: AuthRouter, model: ModelClass): void {
  new CrudRouter({
    model,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { GET: auth.owner_or_admin(model), PUT: auth.owner_or_admin(model) },
  }).register_routes(app);
}

let counter = 0;

/** Registers a user of `fields` (plus a fresh username and password) and logs them in. */
async function member(server: TestServer, fields: Json): Promise<{ id: number; name: string }> {
  counter += 1;
  const name = `member${counter}_${process.pid}`;
  const made = await call(server, 'POST', '/register', {
    json: { username: name, password: 'password-1', ...fields },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { id: made.body.id as number, name };
}

async function login(server: TestServer, username: string): Promise<{ status: number; body: Json }> {
  return call(server, 'POST', '/login', { json: { username, password: 'password-1' } });
}

for (const target of databaseTargets()) {
  describe(
    `the guarded address is the account routes' email_field on ${target}`,
    await requireTarget(target),
    () => {
      let database: TestDatabase;
      let adapter: MikroOrmAdapter;
      let standalone: Served;
      let configured: Served;
      before(async () => {
        database = await createTestDatabase(target);
        adapter = await MikroOrmAdapter.connect({
          url: database.url,
          entities: [AddressedUser, ContactUser],
          schema: 'create',
        });
        const logger = memoryLogger();
        // The review's set-up: account routes mounted by the application, naming their field there.
        const first = new Application({ title: 'addressed', adapter, logger, health: false });
        const firstAuth = new AuthRouter({
          user_model: AddressedUser,
          secret: SECRET,
          bcrypt_cost: 4,
          throttle: LIMITS,
        });
        firstAuth.register_routes(first);
        usersRoutes(first, firstAuth, AddressedUser);
        const firstAccount = mountAccountRoutes(first, firstAuth, {
          mailer: new ConsoleMailer(logger),
          email_field: 'email_address',
          require_verified_email: true,
        });
        standalone = { server: await serve(first.callback()), account: firstAccount };
        // The same through the router's own `account` option, on a model that has an `email` too.
        const second = new Application({ title: 'contact', adapter, logger, health: false });
        const secondAuth = new AuthRouter({
          user_model: ContactUser,
          secret: SECRET,
          bcrypt_cost: 4,
          throttle: LIMITS,
          account: { mailer: new ConsoleMailer(logger), email_field: 'contact_email' },
        });
        secondAuth.register_routes(second);
        usersRoutes(second, secondAuth, ContactUser);
        assert.ok(secondAuth.account !== undefined);
        configured = { server: await serve(second.callback()), account: secondAuth.account };
      });
      after(async () => {
        for (const served of [standalone, configured]) {
          await served?.account.idle();
          await served?.server.close();
        }
        await adapter?.close();
        await database?.drop();
      });

      it('a standalone mount: require_verified_email holds at /login, and a new email_address needs the password and is unverified', async () => {
        const { server } = standalone;
        const user = await member(server, { email_address: `m${counter}_${process.pid}@example.com` });
        const refused = await login(server, user.name);
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.equal(refused.body.code, 'email_not_verified');
        await adapter.update(adapter.openSession(), AddressedUser, user.id, { verified: true });
        const loggedIn = await login(server, user.name);
        assert.equal(loggedIn.status, 200, JSON.stringify(loggedIn.body));
        const token = String(loggedIn.body.access_token);
        const path = `/addressed_users/${user.id}`;
        const stolen = await call(server, 'PATCH', path, {
          token,
          json: { email_address: 'evil@attacker.example' },
        });
        assert.equal(stolen.status, 422, JSON.stringify(stolen.body));
        assert.deepEqual(stolen.body.errors, [
          { path: 'current_password', message: 'is required to change email_address' },
        ]);
        const own = await call(server, 'PATCH', path, {
          token,
          json: { email_address: `moved${counter}@example.com`, current_password: 'password-1' },
        });
        assert.equal(own.status, 200, JSON.stringify(own.body));
        assert.equal(own.body.verified, false, 'a new address is not verified yet');
        assert.equal((await login(server, user.name)).body.code, 'email_not_verified');
      });

      it("the AuthRouter's account option: a new contact_email needs the password and is unverified", async () => {
        const { server } = configured;
        const contact = `c${counter}_${process.pid}@example.com`;
        const user = await member(server, {
          email: `e${counter}_${process.pid}@example.com`,
          contact_email: contact,
        });
        await adapter.update(adapter.openSession(), ContactUser, user.id, { verified: true });
        const token = String((await login(server, user.name)).body.access_token);
        const path = `/contact_users/${user.id}`;
        const stolen = await call(server, 'PATCH', path, {
          token,
          json: { contact_email: 'evil@attacker.example' },
        });
        assert.equal(stolen.status, 422, JSON.stringify(stolen.body));
        assert.deepEqual(stolen.body.errors, [
          { path: 'current_password', message: 'is required to change contact_email' },
        ]);
        const stored = await adapter.get(adapter.openSession(), ContactUser, user.id);
        assert.equal(stored?.contact_email, contact, 'the address did not move');
        const own = await call(server, 'PATCH', path, {
          token,
          json: { contact_email: `moved${counter}@example.com`, current_password: 'password-1' },
        });
        assert.equal(own.status, 200, JSON.stringify(own.body));
        assert.equal(own.body.verified, false, 'a new address is not verified yet');
      });

      it('refuses account routes mounted again with another email_field', async () => {
        const app = new Application({ title: 'twice', adapter, logger: memoryLogger(), health: false });
        const other = new Application({
          title: 'twice more',
          adapter,
          logger: memoryLogger(),
          health: false,
        });
        const auth = new AuthRouter({ user_model: ContactUser, secret: SECRET, bcrypt_cost: 4 });
        const mailer = new ConsoleMailer(memoryLogger());
        mountAccountRoutes(app, auth, { mailer, email_field: 'contact_email' });
        assert.equal(auth.emailField, 'contact_email');
        assert.throws(() => mountAccountRoutes(other, auth, { mailer }), ConfigurationError);
      });
    },
  );
}
