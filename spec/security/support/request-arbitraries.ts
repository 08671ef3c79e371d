/**
 * Whole requests for one OpenAPI operation: credentials, path id, query parameters (`limit`,
 * `offset`, `sort`, `fields`, `filter[...]`) and body drawn independently, mostly valid and often
 * hostile.
 */
import fc from 'fast-check';
import type { HttpRequest } from './client.js';
import { asJson, type Json, type Operation, resolve } from './openapi-document.js';
import { type Body, bodyArbitrary, INT32, valueArbitrary } from './schema-arbitraries.js';

/** What the arbitraries draw credentials and ids from. */
export interface FuzzContext {
  /** Authorization header values to draw from (undefined: no header). */
  readonly credentials: readonly (string | undefined)[];
  /** Ids that exist, per resource segment (`users`, `posts`…). */
  readonly ids: Readonly<Record<string, readonly number[]>>;
  /** Ids no DELETE may remove (the accounts the fuzzing authenticates with). */
  readonly protectedIds: Readonly<Record<string, readonly number[]>>;
}

function idArbitrary(existing: readonly number[]): fc.Arbitrary<string> {
  const known = existing.length > 0 ? [fc.constantFrom(...existing).map(String)] : [];
  return fc.oneof(
    ...known,
    fc.constantFrom(
      '0',
      '-1',
      '2147483647',
      '2147483648',
      '-2147483649',
      '9223372036854775808',
      '18446744073709551616',
      '1.5',
      '1e3',
      'abc',
      '%00',
      '%ZZ',
      "1'",
      encodeURIComponent('١'),
    ),
    fc.integer({ min: INT32.min, max: INT32.max }).map(String),
    fc
      .string({ unit: 'binary', maxLength: 12 })
      .filter((text) => text.length > 0)
      .map(encodeURIComponent),
  );
}

/** `sort` / `fields` values: subsets of the documented names, and names that are not documented. */
function listArbitrary(items: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.subarray([...items], { minLength: 1 }).map((names) => names.join(',')), weight: 3 },
    {
      arbitrary: fc.constantFrom(
        'hashed_password',
        '-hashed_password',
        'owner.hashed_password',
        '',
        ',',
        'id,id',
        '$where',
        'x'.repeat(300),
      ),
      weight: 1,
    },
    { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
  );
}

/** `filter[...]` pairs from the deepObject schema: documented fields and operators, and hostile ones. */
function filterArbitrary(doc: Json, schema: Json): fc.Arbitrary<[string, string][]> {
  const fields = Object.keys(asJson(resolve(doc, schema).properties));
  const operators = Object.keys(
    asJson(resolve(doc, { $ref: '#/components/schemas/FilterOperators' }).properties),
  );
  const field = fc.oneof(
    { arbitrary: fc.constantFrom(...fields), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        'hashed_password',
        'owner.hashed_password',
        '$or',
        '__proto__',
        'constructor',
        '',
      ),
      weight: 1,
    },
  );
  const operator = fc.oneof(
    { arbitrary: fc.constantFrom(...operators), weight: 4 },
    { arbitrary: fc.constantFrom('$regex', '$where', '$raw', '', '$eq][$ne'), weight: 1 },
  );
  const value = fc.oneof(
    fc.constantFrom(
      '1',
      '0',
      '-1',
      'true',
      'false',
      'null',
      '',
      '%',
      '_',
      "'",
      '2147483648',
      '1,2,3',
      'a,b',
      '2026-01-01',
      ','.repeat(150),
    ),
    fc.string({ maxLength: 30 }),
  );
  const condition = fc.oneof(
    fc.tuple(field, value).map(([name, text]): [string, string] => [`filter[${name}]`, text]),
    fc
      .tuple(field, operator, value)
      .map(([name, op, text]): [string, string] => [`filter[${name}][${op}]`, text]),
  );
  return fc.array(condition, { maxLength: 3 });
}

/** One query parameter: absent half of the time, else mostly valid, sometimes hostile. */
function queryArbitrary(doc: Json, parameter: Json): fc.Arbitrary<[string, string][]> {
  const name = String(parameter.name);
  const schema = resolve(doc, parameter.schema);
  let pairs: fc.Arbitrary<[string, string][]>;
  if (parameter.style === 'deepObject') {
    pairs = filterArbitrary(doc, schema);
  } else if (schema.type === 'array') {
    const items = (asJson(resolve(doc, schema.items)).enum as string[] | undefined) ?? [];
    pairs = listArbitrary(items).map((value): [string, string][] => [[name, value]]);
  } else {
    const valid = valueArbitrary(doc, schema).map(String);
    const hostile = fc.oneof(
      fc.constantFrom(
        '-1',
        '0',
        '1001',
        '1000000',
        '9007199254740993',
        '1e3',
        '0x10',
        '',
        'abc',
        ' 1',
        '1.5',
        '99999999999999999999',
      ),
      fc.string({ maxLength: 8 }),
    );
    pairs = fc
      .oneof({ arbitrary: valid, weight: 3 }, { arbitrary: hostile, weight: 1 })
      .map((value): [string, string][] => [[name, value]]);
  }
  return fc.option(pairs, { nil: undefined, freq: 2 }).map((value) => value ?? []);
}

/** Resource segment of a path: `/posts/{id}` → `posts`; `/admin/{id}/make-admin` → `users`. */
function resourceOf(path: string): string {
  const segment = path.split('/')[1] ?? '';
  return segment === 'admin' ? 'users' : segment;
}

/** Requests for one operation: credentials, path id, query and body drawn independently. */
export function requestArbitrary(
  doc: Json,
  operation: Operation,
  context: FuzzContext,
): fc.Arbitrary<HttpRequest> {
  const resource = resourceOf(operation.path);
  const protectedIds = new Set((context.protectedIds[resource] ?? []).map(String));
  const needsId = operation.path.includes('{id}');
  let id = needsId ? idArbitrary(context.ids[resource] ?? []) : fc.constant('');
  if (operation.method === 'DELETE') id = id.filter((value) => !protectedIds.has(value));
  const query = fc
    .tuple(
      ...operation.parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => queryArbitrary(doc, parameter)),
    )
    .map((groups) => groups.flat());
  const requestBody =
    operation.operation.requestBody === undefined ? undefined : resolve(doc, operation.operation.requestBody);
  const body: fc.Arbitrary<Body | undefined> =
    requestBody === undefined ? fc.constant(undefined) : bodyArbitrary(doc, requestBody);
  const credentials = fc.constantFrom(...context.credentials);
  return fc
    .record({ credentials, id, query, body })
    .map(({ credentials: authorization, id: key, query: pairs, body: content }) => {
      const path = operation.path.replace('{id}', key);
      const search = pairs
        .map(
          ([name, value]) =>
            `${encodeURIComponent(name).replaceAll('%5B', '[').replaceAll('%5D', ']')}=${encodeURIComponent(value)}`,
        )
        .join('&');
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers.authorization = authorization;
      const request: {
        method: string;
        path: string;
        headers: Record<string, string>;
        json?: unknown;
        body?: string | Uint8Array;
      } = {
        method: operation.method,
        path: search === '' ? path : `${path}?${search}`,
        headers,
      };
      if (content !== undefined && 'json' in content) request.json = content.json;
      if (content !== undefined && 'text' in content) {
        request.body = content.text;
        if (content.contentType !== undefined) headers['content-type'] = content.contentType;
      }
      return request;
    });
}
