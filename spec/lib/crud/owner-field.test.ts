/**
 * `owner_field: false`: a model whose many-to-ones to the user model are ordinary fields (an
 * assignee, a reviewer) is served without an owner, its references written by clients; and a
 * router whose auth dependency names no user model (the plugin's dependency wrapped in a
 * middleware of the application's) warns at registration that no reference is set from the
 * caller (`KMA_OWNER_UNKNOWN`), unless `owner_field` says what is meant.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { AuthDependency } from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';
import { User } from '../auth/support/entities.js';
import { call, memoryLogger, registerUser, SECRET } from '../auth/support/harness.js';

/** Table `tickets`: two references to users, neither of them an owner. */
@Entity()
class Ticket extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() title!: string;
  @ManyToOne(() => User, { nullable: true }) assignee?: User | null;
  @ManyToOne(() => User, { nullable: true }) reviewer?: User | null;
}

/** Table `notes`: one reference to a user, which detection would take for the owner. */
@Entity()
class Note extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() text!: string;
  @ManyToOne(() => User) created_by!: User;
}

/** The process warnings with a code, emitted while `run` runs. */
async function warningsOf(run: () => void | Promise<void>): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const listen = (warning: Error & { code?: string }): void => {
    if (warning.code !== undefined) seen.set(warning.code, warning.message);
  };
  process.on('warning', listen);
  try {
    await run();
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

describe('owner_field: false and dependencies without a user model', () => {
  let adapter: MikroOrmAdapter;
  let server: TestServer;
  let auth: AuthRouter;
  let app: Application;

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [User, Ticket, Note],
      schema: 'create',
    });
    app = new Application({ title: 'owners', adapter, logger: memoryLogger(), health: false });
    auth = new AuthRouter({ user_model: User, secret: SECRET, bcrypt_cost: 4 });
    auth.register_routes(app);
    new CrudRouter({
      model: Ticket,
      secure: true,
      auth_dependency: auth.get_auth_dependency(),
      owner_field: false,
      strict: true,
    }).register_routes(app);
    server = await serve(app.callback());
  });
  after(async () => {
    await server?.close();
    await adapter?.close();
  });

  it('serves a model with several user references and no owner; clients write them', async () => {
    const [me, other] = [await registerUser(server), await registerUser(server)];
    const login = await call(server, 'POST', '/login', {
      json: { username: me.username, password: 'password-1' },
    });
    const token = String(login.body.access_token);
    const created = await call(server, 'POST', '/tickets', {
      token,
      json: { title: 'fix it', assignee: other.id, reviewer: null },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.assignee, other.id, 'not replaced by the caller');
    const moved = await call(server, 'PATCH', `/tickets/${String(created.body.id)}`, {
      token,
      json: { reviewer: me.id },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.reviewer, me.id);
  });

  it('refuses several user references without a preferred name, naming owner_field: false', () => {
    assert.throws(
      () =>
        new CrudRouter({
          model: Ticket,
          secure: true,
          auth_dependency: auth.get_auth_dependency(),
        }).register_routes(
          new Application({ title: 'refused', adapter, logger: memoryLogger(), health: false }),
        ),
      (error: unknown) => error instanceof ConfigurationError && /owner_field: false/.test(error.message),
    );
  });

  it('refuses owner_field: false beside a policy that decides by the owner field', () => {
    assert.throws(
      () =>
        new CrudRouter({
          model: Note,
          prefix: '/refused',
          secure: true,
          auth_dependency: auth.get_auth_dependency(),
          owner_field: false,
          policy: { PUT: auth.owner_or_admin(Note) },
        }).register_routes(
          new Application({ title: 'refused', adapter, logger: memoryLogger(), health: false }),
        ),
      (error: unknown) =>
        error instanceof ConfigurationError && /owner_field: false.*created_by.*PUT/.test(error.message),
    );
  });

  it('refuses an owner_field other than the one a policy decides by', () => {
    const other = new Application({ title: 'mismatch', adapter, logger: memoryLogger(), health: false });
    const ticket = (policy: Parameters<AuthRouter['owner_or_admin']>[1]) =>
      new CrudRouter({
        model: Ticket,
        prefix: `/p${String(policy?.field)}`,
        secure: true,
        auth_dependency: auth.get_auth_dependency(),
        owner_field: 'assignee',
        policy: { DELETE: auth.owner_or_admin(Ticket, policy) },
      }).register_routes(other);
    assert.throws(
      () => ticket({ field: 'reviewer' }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /owner_field "assignee".*DELETE.*"reviewer"/.test(error.message),
    );
    ticket({ field: 'assignee' });
  });

  it('warns when a wrapped dependency names no user model, and not once owner_field says', async () => {
    const dependency = auth.get_auth_dependency();
    const wrapped = (async (ctx, next) => {
      await dependency(ctx, next);
    }) as AuthDependency;
    const other = new Application({ title: 'wrapped', adapter, logger: memoryLogger(), health: false });
    const warned = await warningsOf(() =>
      new CrudRouter({ model: Note, prefix: '/a', secure: true, auth_dependency: wrapped }).register_routes(
        other,
      ),
    );
    assert.match(warned.get('KMA_OWNER_UNKNOWN') ?? '', /Note.*created_by.*owner_field: false/s);
    for (const owner_field of ['created_by', false] as const) {
      const quiet = await warningsOf(() =>
        new CrudRouter({
          model: Note,
          prefix: `/${String(owner_field)}`,
          secure: true,
          auth_dependency: wrapped,
          owner_field,
        }).register_routes(other),
      );
      assert.equal(quiet.has('KMA_OWNER_UNKNOWN'), false, String(owner_field));
    }
    const kept = Object.assign(wrapped, {
      userModel: dependency.userModel,
      securityScheme: dependency.securityScheme,
    });
    const detected = await warningsOf(() =>
      new CrudRouter({ model: Note, prefix: '/kept', secure: true, auth_dependency: kept }).register_routes(
        other,
      ),
    );
    assert.equal(detected.has('KMA_OWNER_UNKNOWN'), false);
  });
});
