/** A user model its ORM never writes (MikroORM `readonly: true`) cannot serve the auth plugin; no resource may take its paths. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { requireTarget } from '../../support/databases.js';
import { LoginAttempt, RetiredUser, User } from './support/entities.js';
import { type AuthFixture, memoryLogger, SECRET, startAuthApp } from './support/harness.js';

describe('a read-only user model', await requireTarget('sqlite-memory'), () => {
  let fx: AuthFixture;
  before(async () => {
    fx = await startAuthApp('sqlite-memory');
  });
  after(async () => {
    await fx?.close();
  });

  it('is refused when the routes are registered, naming the model and the fix', () => {
    const app = new Application({
      title: 'retired',
      adapter: fx.adapter,
      logger: memoryLogger(),
      health: false,
    });
    const auth = new AuthRouter({ user_model: RetiredUser, secret: SECRET, bcrypt_cost: 4 });
    assert.throws(
      () => auth.register_routes(app),
      (error: Error) =>
        error instanceof ConfigurationError &&
        /RetiredUser/.test(error.message) &&
        /readonly/.test(error.message),
    );
  });

  it('a resource on one of its paths (a model whose table is login) is refused, in either order', () => {
    const fresh = () =>
      new Application({ title: 'paths', adapter: fx.adapter, logger: memoryLogger(), health: false });
    const auth = () => new AuthRouter({ user_model: User, secret: SECRET, bcrypt_cost: 4 });
    const refused = (error: Error) => error instanceof ConfigurationError && /\/login/.test(error.message);
    const authFirst = fresh();
    auth().register_routes(authFirst);
    assert.throws(() => new CrudRouter({ model: LoginAttempt }).register_routes(authFirst), refused);
    const crudFirst = fresh();
    new CrudRouter({ model: LoginAttempt }).register_routes(crudFirst);
    assert.throws(() => auth().register_routes(crudFirst), refused);
  });
});
