/**
 * The account recipe (docs/authentication.md, "Password reset" and "Email verification") over HTTP
 * on SQLite, with mail through a real SMTP server on loopback: forgot → mail → reset → login, and
 * request → mail → verify; and the guide's blocks are verbatim in the recipe file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAccountApp } from '../../../examples/recipes/account/app.js';
import { type SmtpSink, startSmtpSink, tokenOf } from '../../lib/auth/support/smtp-sink.js';
import { serve, type TestServer } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';

let built: Awaited<ReturnType<typeof createAccountApp>>;
let server: TestServer;
let sink: SmtpSink;

async function post(
  path: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

before(async () => {
  sink = await startSmtpSink();
  built = await createAccountApp('sqlite::memory:', sink.url);
  server = await serve(built.app.callback());
  const registered = await post('/register', {
    username: 'ada',
    email: 'ada@example.com',
    password: 'lovelace-1815',
  });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
});
after(async () => {
  await built?.account.idle();
  await server?.close();
  await built?.account.options.mailer.close?.();
  await built?.app.close();
  await sink?.close();
});

describe('the account recipe', () => {
  it('resets a forgotten password through the mailed link', async () => {
    const arrival = sink.next('ada@example.com');
    assert.equal((await post('/forgot-password', { email: 'ada@example.com' })).status, 202);
    const mail = await arrival;
    assert.match(mail.decoded, /https:\/\/app\.example\.com\/reset-password\?token=/);
    assert.equal(
      (await post('/reset-password', { token: tokenOf(mail), password: 'analytical-engine' })).status,
      204,
    );
    assert.equal((await post('/login', { username: 'ada', password: 'analytical-engine' })).status, 200);
  });

  it('verifies the email address through the mailed link', async () => {
    const login = await post('/login', { username: 'ada', password: 'analytical-engine' });
    const arrival = sink.next('ada@example.com');
    assert.equal((await post('/verify-email/request', {}, String(login.body.access_token))).status, 202);
    const confirmed = await post('/verify-email', { token: tokenOf(await arrival) });
    assert.deepEqual(confirmed.body, { verified: true });
  });

  it('is shown verbatim in the guide', () => {
    const root = repoRoot();
    const guide = readFileSync(join(root, 'docs', 'authentication.md'), 'utf8');
    const blocks = [
      ...guide.matchAll(/<!-- recipe: (examples\/recipes\/account\/\S+) -->\s*\n```ts\n([\s\S]*?)\n```/g),
    ];
    assert.ok(blocks.length >= 1, 'the guide shows the account recipe');
    for (const [, file = '', code = ''] of blocks) {
      const source = readFileSync(join(root, file), 'utf8')
        .replaceAll("'../../../lib/index.js'", "'koa-model-api'")
        .replaceAll("'../../../lib/auth/index.js'", "'koa-model-api/auth'")
        .replaceAll("'../../../adapters/mikro-orm/index.js'", "'koa-model-api/adapters/mikro-orm'");
      assert.ok(source.includes(code), `the block is not verbatim in ${file}:\n${code}`);
    }
  });
});
