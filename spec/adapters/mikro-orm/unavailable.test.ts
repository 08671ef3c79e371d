import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ConnectionException,
  DriverException,
  type EntityMetadata,
  MikroORM,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { isConnectionError, toApiError } from '../../../adapters/mikro-orm/errors.js';
import { MikroOrmAdapter, mikroOrmOptions } from '../../../adapters/mikro-orm/index.js';
import { unreadCollationsWarning } from '../../../adapters/mikro-orm/unread-collations.js';
import { ApiError } from '../../../lib/errors.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';

const { Gadget } = fixtureModels;
const listAll = { filters: [], sort: [], limit: 10, offset: 0, withTotal: true };

function assertUnavailable(error: unknown): true {
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.status, 503);
  assert.equal(error.code, 'service_unavailable');
  assert.equal(error.headers['Retry-After'], '5');
  assert.equal(error.message, 'The database is unavailable; retry later.');
  assert.ok(error.cause !== undefined, 'the cause is kept for the log');
  return true;
}

// Port 1 on loopback is closed: every connection attempt is refused at once.
for (const url of ['postgres://postgres@127.0.0.1:1/kma_none', 'mariadb://root@127.0.0.1:1/kma_none']) {
  describe(`MikroOrmAdapter with no server behind ${url.split(':')[0]}`, () => {
    it('maps ping, reads and writes to 503 with Retry-After', async () => {
      const warnings: string[] = [];
      const collect = (warning: Error & { code?: string }) => {
        if (warning.code === 'KMA_COLLATIONS_UNREAD') warnings.push(warning.message);
      };
      process.on('warning', collect);
      const adapter = await MikroOrmAdapter.connect({ url, entities: [...mikroOrmFixtureEntities] });
      // The warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', collect);
      // Connecting succeeds without the collations: include= then pairs keys exactly, as warned.
      assert.equal(warnings.length, 1, warnings.join('\n'));
      // The warning is the only sign at start: it says the database is unreachable, and where.
      assert.match(
        warnings[0] ?? '',
        /^koa-model-api: could not reach the database \(ECONNREFUSED 127\.0\.0\.1:1\): .*requests answer 503/,
      );
      try {
        await assert.rejects(adapter.ping(), assertUnavailable);
        const session = adapter.openSession();
        await assert.rejects(adapter.list(session, Gadget, listAll), assertUnavailable);
        await assert.rejects(adapter.get(session, Gadget, 1), assertUnavailable);
        await assert.rejects(adapter.findBy(session, Gadget, 'name', 'x'), assertUnavailable);
        await assert.rejects(adapter.create(session, Gadget, { name: 'x' }), assertUnavailable);
        await assert.rejects(adapter.update(session, Gadget, 1, { name: 'y' }), assertUnavailable);
        await assert.rejects(adapter.delete(session, Gadget, 1), assertUnavailable);
      } finally {
        await adapter.close();
      }
    });
  });
}

describe('The start-up warning of unread collations', () => {
  it('names the unreachable database, through wrapped and aggregated socket errors', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:5439'), {
      code: 'ECONNREFUSED',
      address: '::1',
      port: 5439,
    });
    const dual = new AggregateError([refused], 'connect failed');
    assert.match(
      unreadCollationsWarning(new Error('wrapped', { cause: dual })),
      /could not reach the database \(ECONNREFUSED ::1:5439\)/,
    );
    const unknownHost = Object.assign(new Error('getaddrinfo ENOTFOUND db.invalid'), {
      code: 'ENOTFOUND',
      hostname: 'db.invalid',
    });
    assert.match(
      unreadCollationsWarning(unknownHost),
      /could not reach the database \(ENOTFOUND db\.invalid\): getaddrinfo/,
    );
  });

  it('keeps the plain wording for a failure that is not about reaching the database', () => {
    assert.equal(
      unreadCollationsWarning(new Error('permission denied for table columns')),
      'koa-model-api: the column collations could not be read (permission denied for table columns); include= pairs text keys exactly unless a MySQL/MariaDB key declares its collation.',
    );
  });
});

describe('MikroORM error mapping', () => {
  let orm: MikroORM;
  let meta: EntityMetadata;
  before(async () => {
    orm = await MikroORM.init(
      mikroOrmOptions({
        driver: SqliteDriver,
        dbName: ':memory:',
        metadataProvider: ReflectMetadataProvider,
        entities: [...mikroOrmFixtureEntities],
      }),
    );
    meta = orm.getMetadata().get(Gadget);
  });
  after(() => orm.close());
  const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

  it('recognises lost, refused and timed-out connections in every wrapping', () => {
    assert.ok(isConnectionError(coded('ECONNRESET')));
    assert.ok(isConnectionError(coded('57P01', 'terminating connection due to administrator command')));
    assert.ok(isConnectionError(coded('PROTOCOL_CONNECTION_LOST')));
    assert.ok(isConnectionError(coded('08006')));
    assert.ok(isConnectionError(new Error('timeout exceeded when trying to connect')));
    assert.ok(isConnectionError(new ConnectionException(new Error('Access denied'))));
    assert.ok(isConnectionError(new AggregateError([coded('ECONNREFUSED')], '')));
    assert.ok(isConnectionError(new Error('query failed', { cause: coded('ETIMEDOUT') })));
    assert.ok(!isConnectionError(coded('23505', 'duplicate key value violates unique constraint')));
    assert.ok(!isConnectionError(new TypeError('x is not a function')));
  });

  it('maps a connection error to 503 and leaves programming errors alone', () => {
    assertUnavailable(toApiError(coded('ECONNREFUSED'), { meta, operation: 'read' }));
    const bug = new TypeError('x is not a function');
    assert.equal(toApiError(bug, { meta, operation: 'read' }), bug);
  });

  it('maps any other database error to a generic 500 that keeps the SQL out of the message', () => {
    const error = new DriverException(
      new Error('select * from "gadgets" where "secret" = \'x\' - syntax error'),
    );
    const mapped = toApiError(error, { meta, operation: 'read' });
    assert.ok(mapped instanceof ApiError);
    assert.equal(mapped.status, 500);
    assert.doesNotMatch(mapped.message, /select|gadgets|secret/);
    assert.equal(mapped.cause, error);
  });

  it('names the unique field from each dialect', () => {
    const sqlite = new UniqueConstraintViolationException(
      new Error('UNIQUE constraint failed: gadgets.name'),
    );
    const postgres = new UniqueConstraintViolationException(
      Object.assign(new Error('duplicate key value violates unique constraint "gadgets_name_unique"'), {
        detail: 'Key (name)=(a) already exists.',
        constraint: 'gadgets_name_unique',
      }),
    );
    const mysql = new UniqueConstraintViolationException(
      new Error("Duplicate entry 'a' for key 'gadgets_name_unique'"),
    );
    for (const error of [sqlite, postgres, mysql]) {
      const mapped = toApiError(error, { meta, operation: 'write', values: { name: 'a', quantity: 1 } });
      assert.ok(mapped instanceof ApiError);
      assert.equal(mapped.status, 409);
      assert.deepEqual(
        mapped.errors?.map((e) => e.path),
        ['name'],
        error.message,
      );
      assert.doesNotMatch(JSON.stringify(mapped.toProblem()), /Duplicate|duplicate key|constraint failed/);
    }
  });
});
