/**
 * A user model whose username and email are `char(n)` columns, on every database target:
 * PostgreSQL hands such values back padded with spaces, which must not make the stored name
 * differ from the one that logs in (nor the stored address from the one asking for a reset).
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { BASE_OPTIONS, call, memoryLogger } from './support/harness.js';

/** Table `members`: fixed-width name and address columns. */
@Entity()
class Member extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' }) id!: number;
  @Property({ type: 'string', columnType: 'char(24)', unique: true }) username!: string;
  @Property({ type: 'string', columnType: 'char(64)', unique: true }) email!: string;
}

for (const target of databaseTargets()) {
  describe(`login with char(n) username columns on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;
    let server: TestServer;

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({ url: db.url, entities: [Member], schema: 'create' });
      const app = new Application({ title: 'Padded', adapter, logger: memoryLogger(), health: false });
      new AuthRouter({ ...BASE_OPTIONS, user_model: Member }).register_routes(app);
      server = await serve(app.callback());
    });
    after(async () => {
      await server?.close();
      await adapter?.close();
      await db?.drop();
    });

    it('logs a registered user in, and refuses a wrong password', async () => {
      const registered = await call(server, 'POST', '/register', {
        json: { username: 'ann', email: 'ann@example.com', password: 'password-1' },
      });
      assert.equal(registered.status, 201);
      const login = await call(server, 'POST', '/login', {
        json: { username: 'ann', password: 'password-1' },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const wrong = await call(server, 'POST', '/login', {
        json: { username: 'ann', password: 'password-2' },
      });
      assert.equal(wrong.status, 401);
    });
  });
}
