/**
 * A plugin schema named like a model (the auth plugin's `User`) and that model's router: the
 * router's schema is `<Model>`, as routes.md promises, and relations refer to it. When it describes
 * everything the plugin's did (only `include=` adds to it), the plugin's operations share it: one
 * `User`, no `User2`. Otherwise the plugin's schema moves to `<Model>2` (see relations.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { widens } from '../../../lib/openapi/plugin-names.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import { readSchema } from '../../../lib/schema/model-schemas.js';
import { Author, Book, libraryAdapter, libraryDescription, libraryDocs } from './relation-fixtures.js';

type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** The document of the library's routers, after a plugin declared `Author` as the auth plugin declares `User`. */
function documentWithPlugin(): { schemas: Record<string, Json>; me: unknown } {
  const registry = new OpenApiRegistry({ title: 'Library' });
  registry.addSchema('Author', readSchema(libraryDescription(libraryAdapter(), Author)));
  registry.addOperation({
    method: 'get',
    path: '/me',
    operation: {
      responses: {
        '200': { description: 'Me.', content: { 'application/json': { schema: ref('Author') } } },
      },
    },
  });
  for (const doc of libraryDocs([Book, Author])) registry.addCrud(doc);
  const document = registry.document() as {
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, Json> }> } }>;
    components: { schemas: Record<string, Json> };
  };
  return {
    schemas: document.components.schemas,
    me: document.paths['/me']?.get.responses['200']?.content['application/json']?.schema,
  };
}

describe("a plugin's schema named like a model with routes", () => {
  it("is the router's `<Model>` schema when the router's only adds what include= embeds", () => {
    const { schemas, me } = documentWithPlugin();
    const names = Object.keys(schemas);
    assert.deepEqual(
      names.filter((name) => name.startsWith('Author')),
      ['Author', 'AuthorFields', 'AuthorCreate', 'AuthorUpdate'],
    );
    assert.ok('books' in ((schemas.Author?.properties ?? {}) as Json), "the router's schema, with `books`");
    assert.deepEqual(me, ref('Author'));
    const author = (schemas.Book?.properties as Record<string, { oneOf: Json[] }> | undefined)?.author;
    assert.deepEqual(author?.oneOf[1], ref('Author'));
  });

  it('widens: optional read-only additions and a key that include= may replace, nothing else', () => {
    const plugin = {
      type: 'object',
      properties: { id: { type: 'integer' }, team: { type: 'integer', description: 'Key.' } },
      required: ['id', 'team'],
    };
    const record = {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        team: { description: 'Key or record.', oneOf: [{ type: 'integer' }, ref('Team')] },
        posts: { type: 'array', readOnly: true },
      },
      required: ['id', 'team'],
    };
    assert.equal(widens(record, plugin), true);
    assert.equal(
      widens({ ...record, required: ['id', 'team', 'posts'] }, plugin),
      false,
      'a required addition',
    );
    const writable = { ...record, properties: { ...record.properties, posts: { type: 'array' } } };
    assert.equal(widens(writable, plugin), false, 'a writable addition');
    const narrower = { ...record, properties: { id: { type: 'integer' }, team: record.properties.team } };
    assert.equal(widens(narrower, { ...plugin, properties: { ...plugin.properties, age: {} } }), false);
    assert.equal(widens({ ...record, additionalProperties: false }, plugin), false, 'another keyword');
  });
});
