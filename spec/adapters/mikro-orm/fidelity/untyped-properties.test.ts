/**
 * Properties whose type MikroORM could not tell (`zip?: string | null` reflects as `Object`):
 * MikroORM holds them with its unknown type in the platform's varchar column, `varchar(length)` on
 * the servers and `text` on SQLite. The API serves them as strings with the same `maxLength` on
 * every database (the declared `length`, else 255), in its write validation and in OpenAPI, and
 * warns once per property at registration (`KMA_UNTYPED_PROPERTY`) with the declaration to add.
 * Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Parcel, untypedPropertyEntities } from '../../../fixtures/mikro-orm/untyped-properties.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: untypedPropertyEntities,
  routes: new Map<ModelClass, string>([[Parcel, '/parcels']]),
};

// Registration warns before any test runs: collected for the whole file.
const warnings: Error[] = [];
process.on('warning', (warning) => {
  if ((warning as Error & { code?: string }).code === 'KMA_UNTYPED_PROPERTY') warnings.push(warning);
});

/** The 422 of a value longer than its column, for `path`. */
function assertTooLong(answer: { status: number; body: unknown }, path: string): void {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  const errors = (answer.body as { errors?: { path: string }[] }).errors ?? [];
  assert.deepEqual(
    errors.map((error) => error.path),
    [path],
    JSON.stringify(answer.body),
  );
}

await describeFidelity(
  'MikroORM fidelity: properties whose type MikroORM could not tell',
  (env) => {
    it('takes a declared length as the maxLength on every database, in writes and OpenAPI', async () => {
      assertTooLong(await env().send('POST', '/parcels', { code: 'x'.repeat(11) }), 'code');
      assertTooLong(await env().send('POST', '/parcels', { typed: 'x'.repeat(11) }), 'typed');
      assertTooLong(
        await env().send('POST', '/parcels', { postal: { city: 'Oslo', zip: 'x'.repeat(11) } }),
        'postal.zip',
      );
      assertTooLong(await env().send('POST', '/parcels', { note: 'x'.repeat(256) }), 'note');
      const created = await env().send('POST', '/parcels', {
        code: 'x'.repeat(10),
        note: 'n'.repeat(255),
        postal: { city: 'Oslo', zip: '0150' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const stored = await env().mikroJson(Parcel, id);
      assert.ok(stored !== undefined);
      for (const name of ['code', 'note', 'postal', 'typed'])
        assertSameJson((created.body as Json)[name], stored[name], name);
      const document = await env().get('/openapi.json');
      const schemas = (
        document.components as { schemas: Record<string, { properties: Record<string, Json> }> }
      ).schemas;
      const fields = schemas.Parcel?.properties ?? {};
      assert.equal(fields.code?.maxLength, 10);
      assert.equal(fields.note?.maxLength, 255);
      assert.equal(fields.typed?.maxLength, 10);
    });

    it('warns once per untyped property, naming it and the type to declare', () => {
      const named = (name: string) => warnings.filter((warning) => warning.message.includes(`${name} `));
      for (const name of ['Parcel.code', 'Parcel.note', 'Parcel.sent_at', 'Parcel.postal.zip']) {
        assert.ok(named(name).length > 0, `${name}: ${warnings.map((w) => w.message).join('\n')}`);
        assert.match(named(name)[0]?.message ?? '', /could not tell the type.*type: 'datetime'/);
      }
      assert.match(named('Parcel.created_at')[0]?.message ?? '', /onCreate/);
      assert.equal(named('Parcel.typed').length, 0, 'a declared type is no warning');
      assert.equal(named('Parcel.postal.city').length, 0);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
