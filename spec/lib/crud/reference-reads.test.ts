/**
 * A write may name a related record only if the caller may read it through its own router (security
 * review, session 16): a task attached to a project its caller cannot see was stored, and the answer
 * told whether the project existed. Now such a key is answered exactly as a key that names no
 * record (many-to-one and many-to-many, create and update); an admin, the project's owner, and a
 * target anyone may read are unaffected. Every database target.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { Tag, User } from '../auth/support/entities.js';
import {
  adminWithToken,
  BASE_OPTIONS,
  call,
  type Json,
  memoryLogger,
  userWithToken,
} from '../auth/support/harness.js';

/** Table `projects`: each caller reads only their own (owner_or_admin on GET). */
@Entity()
class Project extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100 })
  name!: string;

  @ManyToOne(() => User)
  owner!: User;
}

/** Table `tasks`: a project, related projects, and tags anyone may read. */
@Entity()
class Task extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100 })
  title!: string;

  @ManyToOne(() => User)
  owner!: User;

  @ManyToOne(() => Project, { nullable: true })
  project?: Project | null;

  @ManyToMany(() => Project)
  related = new Collection<Project>(this);

  @ManyToMany(() => Tag)
  tags = new Collection<Tag>(this);
}

for (const target of databaseTargets()) {
  describe(`related records a write names, on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let server: TestServer;
    let auth: AuthRouter;
    const fixture = () => ({ database, adapter, auth, server }) as never;

    before(async () => {
      database = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: database.url,
        entities: [User, Tag, Project, Task],
        schema: 'create',
      });
      const app = new Application({ title: 'Projects', adapter, logger: memoryLogger(), health: false });
      auth = new AuthRouter(BASE_OPTIONS);
      auth.register_routes(app);
      const secured = { secure: true, auth_dependency: auth.get_auth_dependency() } as const;
      new CrudRouter({ model: User, ...secured, policy: { POST: auth.admin_only() } }).register_routes(app);
      new CrudRouter({ model: Tag, policy: { POST: auth.admin_only() } }).register_routes(app);
      new CrudRouter({
        model: Project,
        ...secured,
        policy: { GET: auth.owner_or_admin(Project), PUT: auth.owner_or_admin(Project) },
      }).register_routes(app);
      new CrudRouter({
        model: Task,
        ...secured,
        policy: { PUT: auth.owner_or_admin(Task), DELETE: auth.owner_or_admin(Task) },
      }).register_routes(app);
      // `include` is a read option: it must not switch the check of written keys off.
      new CrudRouter({
        model: Task,
        prefix: '/closed',
        include: false,
        ...secured,
        policy: { PUT: auth.owner_or_admin(Task), DELETE: auth.owner_or_admin(Task) },
      }).register_routes(app);
      server = await serve(app.callback());
    });
    after(async () => {
      await server?.close();
      await adapter?.close();
      await database?.drop();
    });

    async function created(token: string, path: string, json: Json): Promise<number> {
      const answer = await call(server, 'POST', path, { token, json });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      return answer.body.id as number;
    }

    /** The status and field errors of an answer (the same for a key that names nothing and one not readable). */
    const refusal = (answer: { status: number; body: Json }) => [
      answer.status,
      answer.body.detail,
      answer.body.errors,
    ];

    it('a many-to-one to a record the caller may not read is answered as one to no record, on create and update', async () => {
      const alice = await userWithToken(server);
      const bob = await userWithToken(server);
      const secret = await created(alice.token, '/projects', { name: 'secret' });
      const own = await created(bob.token, '/projects', { name: 'own' });
      assert.equal((await call(server, 'GET', `/projects/${secret}`, { token: bob.token })).status, 403);
      const hidden = await call(server, 'POST', '/tasks', {
        token: bob.token,
        json: { title: 't', project: secret },
      });
      const missing = await call(server, 'POST', '/tasks', {
        token: bob.token,
        json: { title: 't', project: 987654 },
      });
      assert.equal(hidden.status, 422, JSON.stringify(hidden.body));
      assert.deepEqual(refusal(hidden), refusal(missing));
      assert.deepEqual(
        (hidden.body.errors as { path: string }[]).map((error) => error.path),
        ['project'],
      );
      const task = await created(bob.token, '/tasks', { title: 't', project: own });
      const moved = await call(server, 'PATCH', `/tasks/${task}`, {
        token: bob.token,
        json: { project: secret },
      });
      assert.equal(moved.status, 422, JSON.stringify(moved.body));
      const stored = await call(server, 'GET', `/tasks/${task}`, { token: bob.token });
      assert.equal(stored.body.project, own, 'nothing written');
      assert.equal(
        (await call(server, 'PATCH', `/tasks/${task}`, { token: bob.token, json: { project: null } })).status,
        200,
      );
      // Alice may, and so may an admin.
      await created(alice.token, '/tasks', { title: 'mine', project: secret });
      const admin = await adminWithToken(fixture());
      await created(admin.token, '/tasks', { title: 'admin', project: secret });
    });

    it('a missing and an unreadable key in one body are named alike, in one list', async () => {
      const alice = await userWithToken(server);
      const bob = await userWithToken(server);
      const secret = await created(alice.token, '/projects', { name: 'secret' });
      const answer = await call(server, 'POST', '/tasks', {
        token: bob.token,
        json: { title: 't', related: [secret, 987656], project: 987657 },
      });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(
        (answer.body.errors as { path: string; message: string }[]).map((error) => [
          error.path,
          error.message,
        ]),
        [
          ['project', 'References a record that does not exist.'],
          ['related.0', `no Project has id ${secret}`],
          ['related.1', 'no Project has id 987656'],
        ],
      );
    });

    it('a router with include: false checks written keys all the same', async () => {
      const alice = await userWithToken(server);
      const bob = await userWithToken(server);
      const secret = await created(alice.token, '/projects', { name: 'secret' });
      const answer = await call(server, 'POST', '/closed/tasks', {
        token: bob.token,
        json: { title: 't', project: secret },
      });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
    });

    it('an update may repeat the many-to-one value the record holds (a PUT of what GET gave), whoever set it', async () => {
      const alice = await userWithToken(server);
      const bob = await userWithToken(server);
      const admin = await adminWithToken(fixture());
      const secret = await created(alice.token, '/projects', { name: 'secret' });
      const task = await created(bob.token, '/tasks', { title: 't' });
      // An admin links Bob's task to Alice's project, both ways.
      const linked = await call(server, 'PATCH', `/tasks/${task}`, {
        token: admin.token,
        json: { project: secret, related: [secret] },
      });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      const read = await call(server, 'GET', `/tasks/${task}`, { token: bob.token });
      const put = await call(server, 'PUT', `/tasks/${task}`, {
        token: bob.token,
        json: { title: 'renamed', project: read.body.project },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.title, 'renamed');
      // A many-to-many array is checked whole (GET does not show it; passing linked keys would tell them).
      const relinked = await call(server, 'PATCH', `/tasks/${task}`, {
        token: bob.token,
        json: { related: [secret] },
      });
      assert.equal(relinked.status, 422, JSON.stringify(relinked.body));
    });

    it('a many-to-many key the caller may not read is answered as a key of no record; readable targets pass', async () => {
      const alice = await userWithToken(server);
      const bob = await userWithToken(server);
      const secret = await created(alice.token, '/projects', { name: 'secret' });
      const own = await created(bob.token, '/projects', { name: 'own' });
      const hidden = await call(server, 'POST', '/tasks', {
        token: bob.token,
        json: { title: 't', related: [own, secret] },
      });
      const missing = await call(server, 'POST', '/tasks', {
        token: bob.token,
        json: { title: 't', related: [own, 987655] },
      });
      assert.equal(hidden.status, 422, JSON.stringify(hidden.body));
      assert.deepEqual(
        (hidden.body.errors as { path: string }[]).map((error) => error.path),
        ['related.1'],
      );
      assert.deepEqual(
        (hidden.body.errors as { message: string }[])[0]?.message,
        `no Project has id ${secret}`,
      );
      assert.equal(missing.status, 422);
      assert.match(
        String((missing.body.errors as { message: string }[])[0]?.message),
        /^no Project has id 987655$/,
      );
      const task = await created(bob.token, '/tasks', { title: 't', related: [own] });
      const grown = await call(server, 'PUT', `/tasks/${task}`, {
        token: bob.token,
        json: { title: 't', related: [own, secret] },
      });
      assert.equal(grown.status, 422, JSON.stringify(grown.body));
      // Tags have no read rule: anyone may name them.
      const admin = await adminWithToken(fixture());
      const tag = await created(admin.token, '/tags', { name: `tag-${task}` });
      assert.equal(
        (await call(server, 'PATCH', `/tasks/${task}`, { token: bob.token, json: { tags: [tag] } })).status,
        200,
      );
    });
  });
}
