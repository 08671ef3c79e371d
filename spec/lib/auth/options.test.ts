import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { Argon2idHasher, BcryptHasher } from '../../../lib/auth/hashers.js';
import type { AuthRouterOptions } from '../../../lib/auth/options.js';
import { MemoryThrottleStore } from '../../../lib/auth/throttle/memory-store.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';

class Member extends AuthMixin(FrameworkModel) {}
class Plain extends FrameworkModel {}

const secret = 'options-test-secret-long-enough-0123456789';
const make = (options: Record<string, unknown>) =>
  new AuthRouter({ user_model: Member, secret, ...options } as AuthRouterOptions);

describe('AuthRouter options', () => {
  it('accepts snake_case and camelCase names for the same options', () => {
    const snake = new AuthRouter({
      user_model: Member,
      secret,
      token_lifetime: 60,
      bcrypt_cost: 4,
      username_field: 'email',
    });
    const camel = new AuthRouter({
      userModel: Member,
      secret,
      tokenLifetime: 60,
      bcryptCost: 4,
      usernameField: 'email',
    });
    for (const router of [snake, camel]) {
      assert.equal(router.userModel, Member);
      assert.equal(router.tokens.settings.lifetime, 60);
      assert.equal((router.passwords.current as BcryptHasher).cost, 4);
      assert.equal(router.usernameField, 'email');
    }
  });

  it('has safe defaults: HS256, one hour, bcrypt cost 12, throttling on, not strict', () => {
    const router = make({});
    assert.equal(router.tokens.algorithm, 'HS256');
    assert.equal(router.tokens.settings.lifetime, 3600);
    assert.equal(router.tokens.settings.issuer, 'koa-model-api');
    assert.equal((router.passwords.current as BcryptHasher).cost, 12);
    assert.ok(router.throttle !== undefined);
    assert.ok(router.throttle.store instanceof MemoryThrottleStore);
    assert.equal(router.strict, false);
  });

  it('refuses every mistake when the router is created', () => {
    const mistakes: [Record<string, unknown>, RegExp][] = [
      [{ user_model: undefined }, /needs `user_model`/],
      [{ user_model: Plain }, /must extend AuthMixin/],
      [{ userModel: Plain }, /`user_model` and `userModel` are the same option/],
      [{ secret: 'short' }, /at least 32 bytes/],
      [{ token_lifetime: 0 }, /token_lifetime/],
      [{ tokenLifetime: 1.5 }, /token_lifetime/],
      [{ issuer: '' }, /issuer/],
      [{ audience: 42 }, /audience/],
      [{ strict: 'yes' }, /strict/],
      [{ algorithm: 'none' }, /algorithm must be one of/],
      [{ password_hasher: 'md5' }, /password_hasher/],
      [{ password_hasher: 'argon2id', bcrypt_cost: 10 }, /bcrypt_cost/],
      [{ bcrypt_cost: 40 }, /bcrypt cost/],
      [{ throttle: { username: { attempts: 0, window: 60 } } }, /attempts/],
      [{ throttle: { usernames: {} } }, /unknown throttle option/],
      [{ throttle: 'off' }, /throttle/],
      [{ throttle_store: {} }, /hit, undo and reset/],
      [{ adapter: {} }, /OrmAdapter/],
      [{ sekret: secret }, /unknown option `sekret`/],
      [{ username_field: '' }, /username_field/],
    ];
    for (const [options, message] of mistakes) {
      assert.throws(
        () => make(options),
        (error: Error) => error instanceof ConfigurationError && message.test(error.message),
        JSON.stringify(options),
      );
    }
  });

  it('takes a hasher object, argon2id by name, a throttle store, or no throttling', () => {
    assert.ok(make({ password_hasher: 'argon2id' }).passwords.current instanceof Argon2idHasher);
    const hasher = new BcryptHasher({ cost: 5 });
    assert.equal(make({ passwordHasher: hasher }).passwords.current, hasher);
    const store = new MemoryThrottleStore({ maxKeys: 5 });
    assert.equal(make({ throttle_store: store }).throttle?.store, store);
    assert.equal(
      make({ throttle: { store, username: { attempts: 2, window: 5 } } }).throttle?.limits.username.attempts,
      2,
    );
    assert.equal(make({ throttle: false }).throttle, undefined);
  });

  it('never takes a password through the user routes: a user created there gets an unusable hash', async () => {
    const router = make({ bcrypt_cost: 4 });
    const hooks = new CrudRouter({ model: Member, auth_dependency: router.get_auth_dependency() }).options
      .writeHooks;
    assert.ok(hooks !== undefined);
    assert.deepEqual(hooks.requiredOnCreate, []);
    assert.deepEqual(Object.keys(hooks.extraFields), ['current_password']);
    const prepared = await hooks.prepare({ username: 'm', password: 'long enough' }, 'create', undefined);
    // And tokens issued before the user existed (a deleted one's of the same key) are refused.
    const { tokens_valid_after: revokedBefore, ...credentials } = prepared;
    assert.deepEqual(credentials, { username: 'm', hashed_password: '!unset' });
    assert.ok(Date.parse(String(revokedBefore)) <= Date.now());
    assert.deepEqual(await hooks.prepare({ username: 'n', password: 'long enough' }, 'update', undefined), {
      username: 'n',
    });
  });

  it('gives a CrudRouter on the user model the write hooks of the router whose dependency it was given', () => {
    // Two plugins on one user model (two applications): each users router keeps its own plugin's rules.
    const byName = make({});
    const byEmail = make({ username_field: 'email' });
    const rulesOf = (router: AuthRouter) =>
      Object.keys(
        new CrudRouter({ model: Member, secure: true, auth_dependency: router.get_auth_dependency() }).options
          .writeHooks?.fieldRules ?? {},
      );
    // The login field's rules, and the email address's (one plain address); one field when they are one.
    assert.deepEqual(rulesOf(byName), ['username', 'email']);
    assert.deepEqual(rulesOf(byEmail), ['email']);
    // A policy of the plugin authenticates by itself, and brings the hooks as well.
    const guarded = new CrudRouter({ model: Member, policy: { PUT: byEmail.owner_or_admin(Member) } });
    assert.deepEqual(Object.keys(guarded.options.writeHooks?.fieldRules ?? {}), ['email']);
  });

  it('refuses a CrudRouter on the user model without the write hooks, when it is created', () => {
    make({});
    assert.throws(
      () => new CrudRouter({ model: Member }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        /Member needs the write hooks of the auth plugin/.test(error.message) &&
        error.message.includes('auth_dependency: auth.get_auth_dependency()'),
    );
  });

  it('derives every camelCase method alias, and an alias calls an overriding method', async () => {
    const router = make({});
    for (const name of [
      'registerRoutes',
      'registerAdminRoutes',
      'getAuthDependency',
      'ownerOrAdmin',
      'adminOnly',
      'ensureAdmin',
      'revokeSessions',
      'setPassword',
    ] as const) {
      assert.equal(typeof router[name], 'function', name);
      assert.equal(router[name].name, name);
    }
    class Audited extends AuthRouter {
      readonly calls: string[] = [];
      override admin_only() {
        this.calls.push('admin_only');
        return super.admin_only();
      }
    }
    const audited = new Audited({ user_model: Member, secret });
    assert.equal(audited.adminOnly(), audited.admin_only());
    assert.deepEqual(audited.calls, ['admin_only', 'admin_only']);
    await assert.rejects(router.ensureAdmin({ username: 'a', password: 'password1' }), /needs an adapter/);
  });

  it('returns one dependency carrying the user model and its security scheme, and stable admin_only', () => {
    const router = make({});
    const dependency = router.get_auth_dependency();
    assert.equal(router.getAuthDependency(), dependency);
    assert.equal(dependency.userModel, Member);
    assert.equal(dependency.securityScheme, 'OAuth2PasswordBearer');
    assert.equal(router.admin_only(), router.adminOnly());
    assert.equal(router.ownerOrAdmin(Member).name, 'owner_or_admin');
  });

  it('refuses ensure_admin before it knows an adapter', async () => {
    await assert.rejects(make({}).ensure_admin({ username: 'a', password: 'password1' }), /needs an adapter/);
  });
});
