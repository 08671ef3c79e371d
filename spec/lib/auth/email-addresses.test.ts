/**
 * A user's email address is one plain address: the account routes mail reset and verification
 * links to it, and a mail library reads `"Boss" <a@x>` or `a@x, b@y` as other recipients, so one
 * user could have another's address marked verified, or send the app's mail to many (security
 * review, session 16). Refused with a 422 naming the field on /register and on the user routes
 * (create and update), with a ConfigurationError by `ensure_admin`; the OpenAPI schema says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError } from '../../../lib/errors.js';
import {
  type AuthFixture,
  adminWithToken,
  call,
  registerUser,
  startAuthApp,
  userWithToken,
} from './support/harness.js';

const NOT_ONE_ADDRESS = [
  'ceo@corp.com <eve@evil.com>',
  '"Boss" <eve@evil.com>',
  'a@example.com, b@example.com',
  'a@example.com;b@example.com',
  'a b@example.com',
  'eve@evil.com\r\nBcc: x@y.z',
  '(comment)eve@evil.com',
  'no-at-sign',
  `${'a'.repeat(250)}@x.io`,
];

describe('email addresses of users', () => {
  let fx: AuthFixture;
  before(async () => {
    fx = await startAuthApp('sqlite-memory');
  });
  after(() => fx?.close());

  it('/register refuses anything but one plain address (422 naming email), and takes a plain one', async () => {
    for (const email of NOT_ONE_ADDRESS) {
      const answer = await call(fx.server, 'POST', '/register', {
        json: { username: `u${Math.random().toString(36).slice(2, 8)}`, email, password: 'password-1' },
      });
      assert.equal(answer.status, 422, `${email}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(
        (answer.body.errors as { path: string }[]).map((error) => error.path),
        ['email'],
        email,
      );
    }
    for (const email of ['zoë+news@exämple.com', 'first.last@sub.example.co.uk'])
      assert.equal((await registerUser(fx.server, { email })).email, email);
  });

  it('the user routes refuse it on create (an admin) and on update (the owner, with the password)', async () => {
    const admin = await adminWithToken(fx);
    const created = await call(fx.server, 'POST', '/users', {
      token: admin.token,
      json: { username: 'listed', email: 'a@example.com, b@example.com' },
    });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    const user = await userWithToken(fx.server);
    const changed = await call(fx.server, 'PATCH', `/users/${user.id}`, {
      token: user.token,
      json: { email: 'victim@example.com <me@example.com>', current_password: 'password-1' },
    });
    assert.equal(changed.status, 422, JSON.stringify(changed.body));
    assert.deepEqual(
      (changed.body.errors as { path: string }[]).map((error) => error.path),
      ['email'],
    );
  });

  it('ensure_admin refuses it at start-up', async () => {
    await assert.rejects(
      fx.auth.ensure_admin({ username: 'boss', password: 'admin-password', email: 'boss@x.io, eve@y.io' }),
      (error: unknown) =>
        error instanceof ConfigurationError && /email must be one plain email address/.test(error.message),
    );
  });

  it('the OpenAPI schemas of the user routes state the pattern', async () => {
    const document = (await call(fx.server, 'GET', '/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, { pattern?: string }> }> };
    };
    for (const schema of ['UserCreate', 'UserUpdate']) {
      const pattern = document.components.schemas[schema]?.properties.email?.pattern;
      assert.ok(pattern !== undefined, schema);
      const plain = new RegExp(pattern, 'u');
      assert.equal(plain.test('a@example.com'), true);
      for (const email of NOT_ONE_ADDRESS.slice(0, -1)) assert.equal(plain.test(email), false, email);
    }
  });
});
