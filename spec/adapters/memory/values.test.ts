/** Stored forms of the MemoryAdapter's field types, and key lookup from path ids. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareDecimal } from '../../../adapters/memory/compare.js';
import { keyFromId, toStored, ValueProblem } from '../../../adapters/memory/values.js';
import type { FieldType } from '../../../lib/types.js';

const stored = (type: FieldType, value: unknown, extra: object = {}): unknown =>
  toStored({ type, ...extra }, value);
const problem = (type: FieldType, value: unknown, extra: object = {}): void => {
  assert.throws(() => stored(type, value, extra), ValueProblem, `${type} refuses ${String(value)}`);
};

describe('MemoryAdapter stored values', () => {
  it('keeps NULL for every type (nullability is the table’s business)', () => {
    for (const type of ['string', 'integer', 'json', 'datetime'] as const)
      assert.equal(stored(type, null), null);
  });

  it('strings: maxLength counts characters, not UTF-16 units', () => {
    assert.equal(stored('string', '😀😀', { maxLength: 2 }), '😀😀');
    problem('string', 'abc', { maxLength: 2 });
    problem('text', 5);
  });

  it('numbers: integers must be safe integers; numbers finite', () => {
    assert.equal(stored('integer', -3), -3);
    problem('integer', 1.5);
    problem('integer', '3');
    problem('integer', 2 ** 53);
    problem('number', Number.NaN);
    assert.equal(stored('number', 0.25), 0.25);
  });

  it('bigint and decimal are exact strings', () => {
    assert.equal(stored('bigint', 12345678901234567890n), '12345678901234567890');
    assert.equal(stored('bigint', '+007'), '7');
    problem('bigint', '1.0');
    assert.equal(stored('decimal', '+12.50'), '12.50');
    assert.equal(stored('decimal', 0.1), '0.1');
    problem('decimal', '1e5');
    assert.equal(compareDecimal('10', '9.99'), 1);
    assert.equal(compareDecimal('-1.5', '-1.25'), -1);
    assert.equal(compareDecimal('2.50', '2.5'), 0);
    assert.equal(compareDecimal('.5', '0.50'), 0);
  });

  it('dates, date-times and times', () => {
    assert.equal(stored('date', '2024-02-29'), '2024-02-29');
    problem('date', '2023-02-29');
    problem('date', '2024-1-01');
    const instant = stored('datetime', '2024-01-01T12:00:00+02:00');
    assert.ok(instant instanceof Date && instant.toISOString() === '2024-01-01T10:00:00.000Z');
    const source = new Date(0);
    assert.notEqual(stored('datetime', source), source, 'a Date is copied');
    problem('datetime', 'yesterday');
    // Served as `+010000-…` it would be no RFC 3339 date-time: refused, as by the MikroORM adapter.
    problem('datetime', '9999-12-31T23:30:00-01:00');
    assert.equal(stored('time', '23:59'), '23:59:00');
    assert.equal(stored('time', '00:00:01.5'), '00:00:01.5');
    problem('time', '24:00');
  });

  it('uuid, enum, boolean and json', () => {
    assert.equal(
      stored('uuid', 'ABCDEF01-2345-4789-8abc-def012345678'),
      'abcdef01-2345-4789-8abc-def012345678',
    );
    problem('uuid', 'abc');
    assert.equal(stored('enum', 2, { enumValues: [1, 2] }), 2);
    problem('enum', '2', { enumValues: [1, 2] });
    problem('boolean', 'true');
    const value = { a: [1, { b: null }] };
    const copy = stored('json', value);
    assert.deepEqual(copy, value);
    assert.notEqual(copy, value);
    problem('json', { when: new Date() });
    problem('json', { f: () => 1 });
    problem('json', Number.POSITIVE_INFINITY);
  });

  it('turns path ids into keys, or undefined when no row can have them', () => {
    assert.equal(keyFromId('integer', '42'), 42);
    assert.equal(keyFromId('integer', 42), 42);
    assert.equal(keyFromId('integer', '4x'), undefined);
    assert.equal(keyFromId('bigint', '42'), '42');
    assert.equal(keyFromId('uuid', 'nope'), undefined);
    assert.equal(keyFromId('string', 'FR'), 'FR');
  });
});
