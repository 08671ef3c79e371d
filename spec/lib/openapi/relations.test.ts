/**
 * The document shows what relations let a client do, and only that: an `include` parameter that
 * names the includable relations (one dotted level deeper too), a many-to-one field that is its key
 * or the related record, embedded collections bounded by the router's `include_limit`, `rel.field`
 * names in `fields`, `sort` and `filter[…]`, and the 401/403 the related router's read rules give.
 */
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import type { CrudRoutesDoc } from '../../../lib/openapi/types.js';
import type { ModelClass } from '../../../lib/types.js';
import { PASSWORD_SCHEME, policy, SCHEME } from './fixtures.js';
import { Author, Book, Category, libraryDocs, Tag } from './relation-fixtures.js';

// openapi-typescript 7 drives the TypeScript 5 compiler API (see clients.test.ts).
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) {
      return nextResolve('typescript-5', context);
    }
    return nextResolve(specifier, context);
  },
});

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

type Json = Record<string, unknown>;

/** Reads a nested member of the document, failing the test when a step is missing. */
function at(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const key of path) {
    assert.ok(typeof current === 'object' && current !== null && key in current, `missing ${path.join('.')}`);
    current = (current as Json)[key];
  }
  return current as Json;
}

/** The document of the given routers, registered in that order. */
function documentOf(docs: readonly CrudRoutesDoc[], setUp?: (registry: OpenApiRegistry) => void): Json {
  const registry = new OpenApiRegistry({ title: 'Library' });
  setUp?.(registry);
  for (const doc of docs) registry.addCrud(doc);
  return registry.document() as Json;
}

/** The parameters of an operation, by name. */
function parametersOf(doc: Json, path: string): Map<string, Json> {
  const list = (at(doc, 'paths', path, 'get').parameters ?? []) as Json[];
  return new Map(list.map((parameter) => [String(parameter.name), parameter]));
}

/** The `enum` of an array parameter's items. */
function itemsEnum(parameter: Json | undefined): unknown[] {
  return at(parameter, 'schema', 'items').enum as unknown[];
}

const ALL: readonly ModelClass[] = [Book, Author, Category, Tag];

describe('OpenAPI: include parameter', () => {
  const doc = documentOf(libraryDocs(ALL, new Map([[Book, { includeLimit: 25 }]])));

  it('lists every includable relation and each one dotted level deeper, on list and read', () => {
    const expected = ['author', 'author.books', 'category', 'tags', 'tags.books'];
    for (const path of ['/books', '/books/{id}']) {
      const include = parametersOf(doc, path).get('include');
      assert.ok(include !== undefined, path);
      assert.deepEqual(itemsEnum(include), expected, path);
      assert.equal(include.in, 'query');
      assert.equal(include.style, 'form');
      assert.equal(include.explode, false);
      assert.equal(at(include, 'schema').type, 'array');
      assert.match(String(include.description), /at most 25 per record/);
    }
    assert.deepEqual(itemsEnum(parametersOf(doc, '/authors').get('include')), [
      'books',
      'books.author',
      'books.category',
      'books.tags',
    ]);
  });

  it('documents 400 on the read route, which now takes a query parameter', () => {
    assert.ok('400' in at(doc, 'paths', '/books/{id}', 'get', 'responses'));
  });

  it('is absent where there is no includable relation', () => {
    const alone = documentOf(libraryDocs([Book, Category]).filter((d) => d.description.model === Category));
    assert.equal(parametersOf(alone, '/categories').has('include'), false);
    assert.equal(parametersOf(alone, '/categories/{id}').has('include'), false);
    // The read route still refuses an `include` it cannot honour, so its 400 is documented.
    assert.equal('400' in at(alone, 'paths', '/categories/{id}', 'get', 'responses'), true);
  });

  it('leaves out a relation whose target has no routes in the document', () => {
    const partial = documentOf(libraryDocs([Book, Author]));
    assert.deepEqual(itemsEnum(parametersOf(partial, '/books').get('include')), ['author', 'author.books']);
    const book = at(partial, 'components', 'schemas', 'Book', 'properties');
    assert.equal('oneOf' in at(book, 'category'), false, 'category stays a key');
    assert.equal('tags' in book, false);
    const names = [...parametersOf(partial, '/books').keys()];
    assert.equal(
      names.some((name) => name.startsWith('filter[category.')),
      false,
    );
  });
});

describe('OpenAPI: read schemas of related records', () => {
  const doc = documentOf(libraryDocs(ALL, new Map([[Book, { includeLimit: 25 }]])));
  const schemas = at(doc, 'components', 'schemas');

  it('documents an includable many-to-one as its key or the related record', () => {
    const author = at(schemas, 'Book', 'properties', 'author');
    assert.deepEqual(author.oneOf, [
      { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
      { $ref: '#/components/schemas/Author' },
    ]);
    assert.match(
      String(author.description),
      /Primary key \(id\) of the referenced Author\. With `include=author`/,
    );
    const category = at(schemas, 'Book', 'properties', 'category');
    assert.deepEqual((category.oneOf as Json[])[0]?.type, ['integer', 'null']);
    assert.deepEqual((category.oneOf as Json[])[1], { $ref: '#/components/schemas/Category' });
    assert.match(String(category.description), /`null` when there is none/);
    assert.ok((at(schemas, 'Book').required as string[]).includes('author'));
  });

  it('documents an includable collection as an optional, bounded, read-only array of related records', () => {
    const tags = at(schemas, 'Book', 'properties', 'tags');
    assert.equal(tags.type, 'array');
    assert.deepEqual(tags.items, { $ref: '#/components/schemas/Tag' });
    assert.equal(tags.maxItems, 25);
    assert.equal(tags.readOnly, true);
    assert.match(String(tags.description), /only when the request names `tags` in `include`/);
    assert.equal((at(schemas, 'Book').required as string[]).includes('tags'), false);
    const books = at(schemas, 'Author', 'properties', 'books');
    assert.deepEqual(books.items, { $ref: '#/components/schemas/Book' });
    assert.equal(books.maxItems, 100, "the Author router's default limit");
    assert.deepEqual(at(schemas, 'Tag', 'properties', 'books', 'items'), {
      $ref: '#/components/schemas/Book',
    });
  });

  it('takes a writable many-to-many as an array of target keys in write bodies, and no other collection', () => {
    for (const name of ['BookCreate', 'BookUpdate']) {
      const tags = at(schemas, name, 'properties', 'tags');
      assert.equal(tags.type, 'array', name);
      assert.equal(at(tags, 'items').type, 'integer', name);
      assert.equal('readOnly' in tags, false, name);
    }
    assert.equal((at(schemas, 'BookCreate').required as string[]).includes('tags'), false);
    for (const name of ['AuthorCreate', 'AuthorUpdate', 'TagCreate', 'TagUpdate']) {
      assert.equal('books' in at(schemas, name, 'properties'), false, name);
    }
  });

  it('gives list and read answers the relation properties, embedding records a selection may narrow', () => {
    // `fields=id,author.name` sends `{ id, author: { name } }`: embedded records are described like
    // the top-level one under a selection, with no field required, one level deeper too.
    const author = at(schemas, 'BookFields', 'properties', 'author');
    assert.deepEqual(author.oneOf, [
      (at(schemas, 'Book', 'properties', 'author').oneOf as Json[])[0],
      { $ref: '#/components/schemas/AuthorFields' },
    ]);
    assert.deepEqual(at(schemas, 'BookFields', 'properties', 'tags', 'items'), {
      $ref: '#/components/schemas/TagFields',
    });
    assert.deepEqual(at(schemas, 'AuthorFields', 'properties', 'books', 'items'), {
      $ref: '#/components/schemas/BookFields',
    });
    for (const name of ['BookFields', 'AuthorFields', 'TagFields', 'CategoryFields']) {
      assert.equal('required' in at(schemas, name), false, name);
    }
    // Without a selection, writes answer the whole record, as before.
    assert.deepEqual((at(schemas, 'Book', 'properties', 'author').oneOf as Json[])[1], {
      $ref: '#/components/schemas/Author',
    });
    const answer = (method: string, path: string, status: string) =>
      at(doc, 'paths', path, method, 'responses', status, 'content', 'application/json', 'schema');
    assert.deepEqual(answer('get', '/books', '200').items, { $ref: '#/components/schemas/BookFields' });
    assert.deepEqual(answer('get', '/books/{id}', '200'), { $ref: '#/components/schemas/BookFields' });
    assert.deepEqual(answer('post', '/books', '201'), { $ref: '#/components/schemas/Book' });
    assert.deepEqual(answer('put', '/books/{id}', '200'), { $ref: '#/components/schemas/Book' });
  });

  it('validates every answer a selection of an included relation gives', () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'https://koa-model-api.test/selection', components: at(doc, 'components') });
    const validate = (name: string, value: unknown) =>
      ajv.validate({ $ref: `https://koa-model-api.test/selection#/components/schemas/${name}` }, value);
    // fields=id,author.name&include=author ; fields=id,tags.name&include=tags ; one level deeper.
    assert.ok(validate('BookFields', { id: 1, author: { name: 'A' } }), JSON.stringify(ajv.errors));
    assert.ok(validate('BookFields', { id: 1, tags: [{ name: 't' }] }), JSON.stringify(ajv.errors));
    assert.ok(
      validate('BookFields', { id: 1, author: { books: [{ title: 'x' }] } }),
      JSON.stringify(ajv.errors),
    );
    // A key is still a key, and a whole record a whole record.
    assert.ok(validate('BookFields', { id: 1, author: 3 }), JSON.stringify(ajv.errors));
    assert.equal(validate('Book', { id: 1, author: { name: 'A' } }), false);
  });

  it("refers to the name the document gave the target's schema, registered before or after", () => {
    // A plugin declared another `Author`: the model's read schema keeps `Author` (routes.md's
    // `<Model>`), relations say so, and the plugin's schema and its references move to `Author2`.
    const renamed = documentOf(libraryDocs(ALL), (registry) => {
      registry.addSchema('Author', { type: 'object' });
      registry.addOperation({
        method: 'get',
        path: '/me',
        operation: {
          responses: {
            '200': {
              description: 'Me.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Author' } } },
            },
          },
        },
      });
    });
    const renamedSchemas = at(renamed, 'components', 'schemas');
    assert.deepEqual(at(renamedSchemas, 'Author2'), { type: 'object' });
    assert.ok('books' in at(renamedSchemas, 'Author', 'properties'));
    assert.deepEqual((at(renamedSchemas, 'Book', 'properties', 'author').oneOf as Json[])[1], {
      $ref: '#/components/schemas/Author',
    });
    assert.deepEqual(
      at(renamed, 'paths', '/me', 'get', 'responses', '200', 'content', 'application/json', 'schema'),
      { $ref: '#/components/schemas/Author2' },
    );
    assert.equal(
      /\\u0000(record|fields):/.test(JSON.stringify(renamed)),
      false,
      'no reference is left unresolved',
    );
  });

  it('is a valid OpenAPI 3.1 document whose schemas compile as JSON Schema 2020-12', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'https://koa-model-api.test/library', components: at(doc, 'components') });
    const validate = ajv.compile({ $ref: 'https://koa-model-api.test/library#/components/schemas/Book' });
    const book = { id: 1, title: 'Dune', author: 2, category: null };
    assert.equal(validate(book), true, 'keys');
    const author = { id: 2, name: 'Frank', born: null, notes: null };
    const included = { ...book, author, tags: [{ id: 3, name: 'sf' }] };
    assert.equal(validate(included), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...book, author: { ...author, email: 'f@example.org' } }), false, 'hidden');
    assert.equal(
      validate({ ...book, tags: Array.from({ length: 101 }, (_, id) => ({ id, name: 'x' })) }),
      false,
    );
  });
});

describe('OpenAPI: fields, sort and filters through relations', () => {
  const doc = documentOf(libraryDocs(ALL));
  const books = parametersOf(doc, '/books');

  it('offers the readable fields of each includable relation in `fields`', () => {
    const names = itemsEnum(books.get('fields'));
    const expected = [
      'title',
      'author',
      'author.name',
      'author.born',
      'category.name',
      'tags.name',
      'tags',
      'author.books.title',
    ];
    for (const name of expected) {
      assert.ok(names.includes(name), name);
    }
    assert.equal(names.includes('author.email'), false, 'hidden');
    assert.equal(names.includes('author.books'), false, 'not a field');
    assert.match(String(books.get('fields')?.description), /relation named in `include`/);
  });

  it('offers the sortable fields of many-to-one targets in `sort`', () => {
    const keys = itemsEnum(books.get('sort'));
    for (const key of ['author.name', '-author.name', 'category.name', '-category.id', 'author.born']) {
      assert.ok(keys.includes(key), key);
    }
    for (const key of ['author.email', 'author.notes', 'tags.name'])
      assert.equal(keys.includes(key), false, key);
    assert.match(String(books.get('after')?.description), /through a relation/);
    assert.equal(
      itemsEnum(parametersOf(doc, '/authors').get('sort')).some((key) => String(key).includes('.')),
      false,
    );
  });

  it('has a filter parameter per queryable field of a many-to-one target, without $exists', () => {
    const name = books.get('filter[author.name]');
    assert.ok(name !== undefined);
    assert.equal(name.style, 'deepObject');
    const operators = Object.keys(at(name, 'schema', 'properties'));
    assert.deepEqual(operators, [
      '$eq',
      '$ne',
      '$gt',
      '$gte',
      '$lt',
      '$lte',
      '$in',
      '$nin',
      '$like',
      '$ilike',
    ]);
    assert.equal(at(books.get('filter[author.born]'), 'schema', 'properties', '$gte').format, 'date');
    assert.ok(books.has('filter[category.name]'));
    assert.ok(books.has('filter[author.id]'));
    for (const hidden of ['filter[author.email]', 'filter[author.notes]', 'filter[tags.name]']) {
      assert.equal(books.has(hidden), false, hidden);
    }
    assert.match(String(name.description), /Records whose `author` is null never match/);
  });
});

describe("OpenAPI: the related routers' read rules", () => {
  const secured = new Map<ModelClass, Partial<CrudRoutesDoc>>([
    [Category, { policies: { GET: policy('members_only', 'Only members.', true, SCHEME) } }],
  ]);

  it('documents 401 and 403 on list and read when a related router has a read policy', () => {
    const doc = documentOf(libraryDocs(ALL, secured), (r) => r.addSecurityScheme(SCHEME, PASSWORD_SCHEME));
    for (const path of ['/books', '/books/{id}']) {
      const op = at(doc, 'paths', path, 'get');
      const responses = at(op, 'responses');
      assert.ok('401' in responses && '403' in responses, path);
      assert.match(String(op.description), /apply the related router's read rules/);
      assert.match(String(op.description), /`category` \(members_only\)/);
      // Public itself: a token is optional, and sent for the relation that needs it.
      assert.deepEqual(op.security, [{}, { [SCHEME]: [] }], path);
    }
    assert.match(String(at(doc, 'paths', '/books', 'get').description), /filters or sort through a relation/);
    // Authors reach categories only two steps away (`books.category`): still the category rules.
    assert.ok('403' in at(doc, 'paths', '/authors', 'get', 'responses'));
    // Tags reach categories through `books.category`.
    assert.match(String(at(doc, 'paths', '/tags', 'get').description), /`books\.category` \(members_only\)/);
    assert.equal('403' in at(doc, 'paths', '/books', 'post', 'responses'), false, 'writes do not include');
  });

  it('documents 401 alone for a related router that only authenticates', () => {
    const authenticated = new Map<ModelClass, Partial<CrudRoutesDoc>>([
      [Author, { secure: true, securityScheme: SCHEME }],
    ]);
    const doc = documentOf(libraryDocs([Book, Author], authenticated));
    const responses = at(doc, 'paths', '/books', 'get', 'responses');
    assert.ok('401' in responses);
    assert.equal('403' in responses, false);
  });

  it('adds nothing when every related router is open', () => {
    const doc = documentOf(libraryDocs(ALL));
    const op = at(doc, 'paths', '/books', 'get');
    assert.equal('401' in at(op, 'responses') || '403' in at(op, 'responses'), false);
    assert.deepEqual(op.security, []);
  });
});

describe('OpenAPI: relations in generated TypeScript types', () => {
  it('types an includable many-to-one as key or record and a collection as an optional array', async () => {
    const generator = (await import('openapi-typescript')) as unknown as {
      default(schema: unknown): Promise<unknown>;
      astToString(ast: unknown): string;
    };
    const text = generator.astToString(
      await generator.default(structuredClone(documentOf(libraryDocs(ALL)))),
    );
    assert.match(text, /author: number \| components\["schemas"\]\["Author"\];/);
    assert.match(text, /category: \(number \| null\) \| components\["schemas"\]\["Category"\];/);
    assert.match(text, /readonly tags\?: components\["schemas"\]\["Tag"\]\[\];/);
    assert.match(text, /"filter\[author\.name\]"\?: \{/);
    assert.match(
      text,
      /include\?: \("author" \| "author\.books" \| "category" \| "tags" \| "tags\.books"\)\[\];/,
    );
  });
});
