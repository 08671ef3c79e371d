import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildModelDescription } from '../../../lib/model/describe.js';
import { compileSerializer, readableFields } from '../../../lib/schema/serializer.js';
import { field, personDescription, placeDescription } from '../openapi/fixtures.js';

const place = placeDescription();

/** A stored `Place` row as an adapter gives it: JSON names, nested JS values still to convert. */
function row(): Record<string, unknown> {
  return {
    id: 1,
    name: 'Harbour',
    address: {
      street: 'Kaigata 1',
      city: 'Oslo',
      zip: null,
      geo: { lat: 59.9, lng: 10.7 },
      verified_at: new Date('2024-05-06T07:08:09.010Z'),
      token: 'never sent',
      slug: 'oslo-kaigata-1',
    },
    billing: { iban: 'NO93 8601 1117 947', since: new Date('2023-02-01T00:00:00Z') },
    tags: ['sea', 'ferry'],
    ratings: [5, 4],
    weights: null,
    label: 'Harbour (Oslo)',
    score: 4.5,
    description: 'A long text, loaded only on request.',
    secret: 'never sent',
    opened_at: new Date('2020-01-01T00:00:00Z'),
  };
}

describe('compileSerializer', () => {
  it('leaves lazy and hidden fields out of the default selection', () => {
    const out = compileSerializer(place)(row());
    assert.deepEqual(Object.keys(out), [
      'id',
      'name',
      'address',
      'billing',
      'tags',
      'ratings',
      'weights',
      'label',
      'score',
      'opened_at',
    ]);
    assert.deepEqual(
      readableFields(place).map((f) => f.name),
      Object.keys(out),
    );
  });

  it('sends a lazy field when a selection names it, in declaration order', () => {
    const out = compileSerializer(place, ['description', 'name'])(row());
    assert.deepEqual(out, { name: 'Harbour', description: 'A long text, loaded only on request.' });
    assert.deepEqual(compileSerializer(place, ['description'])({ id: 2 }), { description: null });
  });

  it('converts nested dates to ISO strings and drops nested hidden values, keeping the rest as given', () => {
    const out = compileSerializer(place)(row());
    assert.deepEqual(out.address, {
      street: 'Kaigata 1',
      city: 'Oslo',
      zip: null,
      geo: { lat: 59.9, lng: 10.7 },
      verified_at: '2024-05-06T07:08:09.010Z',
      slug: 'oslo-kaigata-1',
    });
    assert.deepEqual(out.billing, { iban: 'NO93 8601 1117 947', since: '2023-02-01' });
    assert.equal(out.opened_at, '2020-01-01T00:00:00.000Z');
    assert.equal(JSON.stringify(out).includes('never sent'), false);
  });

  it('does not change the row it reads', () => {
    const input = row();
    compileSerializer(place)(input);
    assert.ok((input.address as Record<string, unknown>).verified_at instanceof Date);
    assert.equal((input.address as Record<string, unknown>).token, 'never sent');
  });

  it('passes arrays, null objects and objects needing no conversion through as given', () => {
    const input: Record<string, unknown> = { ...row(), billing: null, weights: [0.5] };
    const out = compileSerializer(place)(input);
    assert.equal(out.tags, input.tags);
    assert.deepEqual(out.ratings, [5, 4]);
    assert.equal(out.billing, null);
    assert.deepEqual(out.weights, [0.5]);
    class Plain {}
    const plain = buildModelDescription({
      model: Plain,
      name: 'Plain',
      primaryKeys: ['id'],
      fields: [
        field('id', 'integer', { generated: true }),
        field('spot', 'object', { fields: [field('x', 'number'), field('label', 'string')] }),
      ],
    });
    const spot = { x: 1, label: 'a', extra: true };
    assert.equal(compileSerializer(plain)({ id: 1, spot }).spot, spot, 'no copy when nothing converts');
  });

  it('leaves null and missing values out on a model that omits null, in every selection', () => {
    const omitting = { ...place, omitsNull: true } as typeof place;
    const out = compileSerializer(omitting)({ ...row(), weights: null, score: undefined });
    assert.equal('weights' in out, false);
    assert.equal('score' in out, false);
    assert.equal(out.name, 'Harbour');
    assert.deepEqual(compileSerializer(omitting, ['description', 'weights'])({ id: 2, weights: null }), {});
    // Without the flag a missing value is null.
    assert.deepEqual(compileSerializer(place, ['description', 'weights'])({ id: 2 }), {
      weights: null,
      description: null,
    });
  });

  it('compiles a selection once, whatever order it names the fields in', () => {
    const first = compileSerializer(place, ['name', 'tags']);
    assert.equal(compileSerializer(place, ['tags', 'name']), first);
    assert.notEqual(compileSerializer(place, ['name']), first);
    // Another model's selection of the same names is its own serializer.
    assert.notEqual(compileSerializer(personDescription(), ['name']), compileSerializer(place, ['name']));
  });
});
