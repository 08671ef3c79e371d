/**
 * The deployment recipe (docs/deployment.md): the configuration checks (no server needed), the
 * refusal to start in production without a secret, one ORM configuration for the service and the
 * migrations CLI, and two instances on one PostgreSQL sharing the Redis login throttle.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MikroORM } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { readServiceConfig } from '../../../examples/recipes/deployment/config.js';
import { ormConfig } from '../../../examples/recipes/deployment/orm-config.js';
import { createService, type Service } from '../../../examples/recipes/deployment/service.js';
import { Note, User } from '../../../examples/recipes/getting-started/entities.js';
import { ConfigurationError } from '../../../lib/index.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { REDIS_URL, recipeFile, requireRedis, runNode, silentLogger } from './support.js';

const postgres = await requireTarget('postgresql');
const redis = await requireRedis();
const SECRET = 'a-production-secret-that-is-long-enough-123456';
const base = { DATABASE_URL: 'postgres://app@db.internal:5432/notes' };

function problems(env: NodeJS.ProcessEnv): string {
  try {
    readServiceConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigurationError);
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

describe('readServiceConfig', () => {
  it('refuses production without a secret', () => {
    assert.match(problems({ ...base, NODE_ENV: 'production' }), /NODE_ENV=production needs JWT_SECRET/);
  });

  it('refuses short secrets, current and previous', () => {
    assert.match(problems({ ...base, JWT_SECRET: 'short' }), /JWT_SECRET must be at least 32 bytes/);
    assert.match(
      problems({ ...base, JWT_SECRET: SECRET, JWT_PREVIOUS_SECRETS: 'old' }),
      /JWT_PREVIOUS_SECRETS must be at least 32 bytes/,
    );
  });

  it('reports every problem at once', () => {
    const message = problems({
      NODE_ENV: 'production',
      PORT: 'http',
      DB_SCHEMA: 'update',
      REDIS_URL: 'localhost',
      TRUST_PROXY: 'yes',
    });
    for (const part of [
      'PORT',
      'DATABASE_URL',
      'DB_SCHEMA=update is for development',
      'JWT_SECRET',
      'REDIS_URL',
      'TRUST_PROXY',
    ]) {
      assert.ok(message.includes(part), `${part} in:\n${message}`);
    }
  });

  it('refuses a secret and a key pair together, and unreadable key files', () => {
    assert.match(problems({ ...base, JWT_SECRET: SECRET, JWT_PRIVATE_KEY_FILE: '/k.pem' }), /not both/);
    assert.match(problems({ ...base, JWT_PRIVATE_KEY_FILE: '/nonexistent/key.pem' }), /cannot be read/);
  });

  it('reads a production configuration with rotation, Redis and a trusted proxy', () => {
    const previous = 'the-previous-secret-still-accepted-for-an-hour';
    const config = readServiceConfig({
      ...base,
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      JWT_PREVIOUS_SECRETS: previous,
      REDIS_URL: 'redis://cache:6379/0',
      TRUST_PROXY: 'true',
      PORT: '9000',
    });
    assert.deepEqual(config, {
      production: true,
      host: '127.0.0.1',
      port: 9000,
      databaseUrl: base.DATABASE_URL,
      schema: 'none',
      keys: { kind: 'secret', secret: SECRET, previousSecrets: [previous] },
      redisUrl: 'redis://cache:6379/0',
      redisKeyPrefix: 'notes:throttle:',
      trustProxy: true,
    });
  });

  it('reads a key pair from files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kma-keys-'));
    try {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const file = join(dir, 'jwt.pem');
      await writeFile(file, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const { keys } = readServiceConfig({ ...base, NODE_ENV: 'production', JWT_PRIVATE_KEY_FILE: file });
      assert.equal(keys.kind, 'key-pair');
      assert.match(keys.kind === 'key-pair' ? keys.privateKey : '', /BEGIN PRIVATE KEY/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('development defaults: schema update, tokens from a per-process secret', () => {
    const config = readServiceConfig(base);
    assert.deepEqual(
      [config.production, config.schema, config.keys.kind, config.trustProxy],
      [false, 'update', 'ephemeral', false],
    );
  });
});

describe('main without a secret in production', () => {
  it('refuses to start, says why, and exits 1 without touching the database', async () => {
    const running = runNode(recipeFile('deployment/main.js'), { ...base, NODE_ENV: 'production' });
    assert.equal(await running.exited(), 1);
    assert.match(
      running.output(),
      /Cannot start: Invalid configuration:\n- NODE_ENV=production needs JWT_SECRET/,
    );
  });
});

describe('on PostgreSQL', postgres, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgresql');
  });
  after(() => database?.drop());

  it('the CLI configuration maps the same tables as the service', async () => {
    const fromConfig = await MikroORM.init(ormConfig(database.url));
    const fromConnect = await MikroOrmAdapter.connect({ url: database.url, entities: [User, Note] });
    try {
      const sql = await fromConfig.schema.getCreateSchemaSQL();
      assert.equal(sql, await fromConnect.orm.schema.getCreateSchemaSQL());
      assert.match(sql, /create table "users"/);
      assert.match(sql, /"hashed_password" varchar\(255\) not null/);
    } finally {
      await fromConfig.close();
      await fromConnect.close();
    }
  });

  describe('two instances sharing Redis', redis, () => {
    const instances: { service: Service; server: TestServer }[] = [];
    before(async () => {
      // A prefix of this run: counters of earlier runs (same address, same Redis) must not count.
      const config = readServiceConfig({
        DATABASE_URL: database.url,
        JWT_SECRET: SECRET,
        REDIS_URL,
        REDIS_KEY_PREFIX: `kma:test:${randomBytes(6).toString('hex')}:`,
      });
      for (let i = 0; i < 2; i++) {
        const service = await createService(config, silentLogger);
        instances.push({ service, server: await serve(service.app.callback()) });
      }
    });
    after(async () => {
      for (const { service, server } of instances) {
        await server.close();
        await service.close();
      }
    });

    it('accept each other’s tokens and count failed logins together', async () => {
      const [a, b] = instances.map((instance) => instance.server) as [TestServer, TestServer];
      const username = `u${randomBytes(5).toString('hex')}`;
      const password = 'correct horse battery';
      assert.equal(
        (
          await a.request('/register', {
            method: 'POST',
            json: { username, email: `${username}@example.com`, password },
          })
        ).status,
        201,
      );
      const login = await a.request('/login', { method: 'POST', json: { username, password } });
      const { access_token } = (await login.json()) as { access_token: string };
      const created = await b.request('/notes', {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}` },
        json: { title: 'shared' },
      });
      assert.equal(created.status, 201);

      const attempt = (server: TestServer) =>
        server.request('/login', { method: 'POST', json: { username, password: 'wrong password' } });
      // The successful login above was taken back; five attempts per username, wherever they land.
      for (const server of [a, b, a, b, a]) assert.equal((await attempt(server)).status, 401);
      const refused = await attempt(b);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    });

    it('report ready while the database answers', async () => {
      for (const { server } of instances) {
        assert.equal((await server.request('/health/live')).status, 200);
        assert.equal((await server.request('/health/ready')).status, 200);
      }
    });
  });

  it('main starts with migrations-managed schema off, serves, and drains on SIGTERM', redis, async () => {
    const running = runNode(recipeFile('deployment/main.js'), {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      JWT_SECRET: SECRET,
      REDIS_URL,
      PORT: '0',
    });
    try {
      const [, url] = await running.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      assert.equal((await fetch(`${url}/health/ready`)).status, 200);
    } finally {
      running.child.kill('SIGTERM');
    }
    assert.equal(await running.exited(), 0, running.output());
    assert.match(running.output(), /SIGTERM: draining/);
  });
});
