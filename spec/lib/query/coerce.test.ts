import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { coerceId, coerceQueryValue, parseFieldText } from '../../../lib/query/coerce.js';
import type { FieldDescription } from '../../../lib/types.js';
import { field } from '../openapi/fixtures.js';

const plain = field('n', 'integer') as FieldDescription;
const unsigned = field('n', 'integer', { minimum: 0, maximum: 4294967295 }) as FieldDescription;
const small = field('n', 'integer', { minimum: -32768, maximum: 32767 }) as FieldDescription;

describe('parseFieldText: integers', () => {
  it('holds a field without a range to the signed 32-bit range', () => {
    assert.equal(parseFieldText(plain, '-2147483648'), -2147483648);
    assert.equal(parseFieldText(plain, '2147483647'), 2147483647);
    assert.equal(parseFieldText(plain, '2147483648'), undefined);
    assert.equal(parseFieldText(plain, '-2147483649'), undefined);
  });

  it("uses the field's own range: an unsigned column's large values, a smallint's narrow one", () => {
    assert.equal(parseFieldText(unsigned, '3000000000'), 3000000000);
    assert.equal(parseFieldText(unsigned, '4294967295'), 4294967295);
    assert.equal(parseFieldText(unsigned, '4294967296'), undefined);
    assert.equal(parseFieldText(unsigned, '-1'), undefined);
    assert.equal(parseFieldText(small, '32767'), 32767);
    assert.equal(parseFieldText(small, '40000'), undefined);
  });

  it('refuses text that is no integer, and more digits than a safe integer has', () => {
    for (const raw of ['1.5', '1e3', ' 1', '', '-', '0x10', '12345678901234567'])
      assert.equal(
        parseFieldText(field('n', 'integer', { minimum: 0, maximum: 2 ** 53 - 1 }) as FieldDescription, raw),
        undefined,
        raw,
      );
  });

  it('a filter value past the range is a 400; an id past it names no record', () => {
    assert.throws(
      () => coerceQueryValue(small, '40000', 'filter[n]'),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
    assert.equal(coerceId(unsigned, '4294967296'), undefined);
    assert.equal(coerceId(unsigned, '4294967295'), 4294967295);
  });
});

describe('parseFieldText: dates and times', () => {
  const day = field('d', 'date') as FieldDescription;
  const moment = field('t', 'datetime') as FieldDescription;
  const clock = field('c', 'time') as FieldDescription;

  it('takes days of the calendar only: no 30 February, 29 February in leap years', () => {
    for (const raw of ['2024-02-29', '2023-12-31', '2000-02-29']) assert.equal(parseFieldText(day, raw), raw);
    for (const raw of ['2024-02-30', '2023-02-29', '1900-02-29', '2024-04-31', '2024-13-01', '2024-00-10'])
      assert.equal(parseFieldText(day, raw), undefined, raw);
    assert.equal(parseFieldText(moment, '2024-02-29T10:00:00Z'), '2024-02-29T10:00:00Z');
    assert.equal(parseFieldText(moment, '2024-02-30T10:00:00Z'), undefined);
  });

  it('takes the years 0 to 99 as themselves (Date.UTC would read them as 1900 to 1999)', () => {
    for (const raw of ['0050-05-05', '0004-02-29', '0000-01-01']) assert.equal(parseFieldText(day, raw), raw);
    assert.equal(parseFieldText(day, '0050-02-29'), undefined);
    assert.equal(parseFieldText(moment, '0050-05-05T05:05:05.000Z'), '0050-05-05T05:05:05.000Z');
  });

  it('takes a datetime with its offset, or a day alone; a time of day without an offset is no value', () => {
    // Without an offset the value would be read in the server's time zone: the same query would
    // find other rows on another machine.
    for (const raw of [
      '2024-01-01T00:00:00Z',
      '2024-01-01T10:00:00.123+02:00',
      '2024-01-01 10:00-0500',
      '2024-01-01',
    ])
      assert.equal(parseFieldText(moment, raw), raw, raw);
    for (const raw of ['2024-01-01T00:00:00', '2024-01-01T10:00', '2024-01-01 10:00:00.5'])
      assert.equal(parseFieldText(moment, raw), undefined, raw);
    assert.throws(
      () => coerceQueryValue(moment, '2024-01-01T00:00:00', 'filter[t]'),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
  });

  it('takes the end of the day, 24:00:00, and nothing past it', () => {
    for (const raw of ['24:00', '24:00:00', '23:59:59.999']) assert.equal(parseFieldText(clock, raw), raw);
    for (const raw of ['24:00:01', '24:01', '25:00'])
      assert.equal(parseFieldText(clock, raw), undefined, raw);
  });
});
