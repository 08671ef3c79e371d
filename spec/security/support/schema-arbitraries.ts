/**
 * fast-check arbitraries for values and request bodies from JSON Schemas of an OpenAPI document:
 * valid values with their boundaries, and hostile variants (keys a client may not write, wrong
 * types, non-objects, text that is not JSON, other media types).
 */
import fc from 'fast-check';
import { asJson, type Json, resolve } from './openapi-document.js';

/** Strings no column should choke on: quotes, SQL, wildcards, long, astral, RTL, BOM. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  "'",
  '"',
  "'; DROP TABLE users; --",
  '%',
  '_',
  '\\',
  '$ne',
  '{"$gt":""}',
  '../../etc/passwd',
  '😀',
  '\u202e',
  '\ufeff',
  'a'.repeat(300),
  '١٢٣',
  '0',
  '-1',
  'null',
  'true',
];

/** The range of a 32-bit integer column. */
export const INT32 = { min: -2147483648, max: 2147483647 };

function stringArbitrary(schema: Json): fc.Arbitrary<string> {
  const maxLength = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, 80) : 40;
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const noNul = typeof schema.pattern === 'string' && schema.pattern.includes('\\u0000');
  const text = fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', 'b', 'Z', '0', ' ', "'", '%', '_'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    minLength,
    maxLength,
  });
  const boundary = fc
    .constantFrom(...HOSTILE_STRINGS)
    .filter((value) => [...value].length >= minLength && [...value].length <= maxLength);
  const exact = fc.constant(
    'x'.repeat(
      Math.max(
        minLength,
        Math.min(maxLength, typeof schema.maxLength === 'number' ? schema.maxLength : maxLength),
      ),
    ),
  );
  return fc.oneof(text, boundary, exact).filter((value) => !noNul || !value.includes('\u0000'));
}

function integerArbitrary(schema: Json): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : INT32.min;
  const max = typeof schema.maximum === 'number' ? schema.maximum : INT32.max;
  return fc.oneof(
    fc.integer({ min, max }),
    fc.constantFrom(min, max, Math.max(min, Math.min(max, 0)), Math.max(min, Math.min(max, 1))),
  );
}

/** Values valid for `schema` (as far as the document says), boundaries included. */
export function valueArbitrary(doc: Json, raw: unknown, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type ?? 'string')];
  const options = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return integerArbitrary(schema);
      case 'number':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'array':
        return depth > 2
          ? fc.constant([])
          : fc.array(valueArbitrary(doc, schema.items, depth + 1), { maxLength: 3 });
      case 'object':
        return depth > 2 ? fc.constant({}) : objectArbitrary(doc, schema, depth + 1);
      default:
        return stringArbitrary(schema);
    }
  });
  return options.length === 1 ? (options[0] as fc.Arbitrary<unknown>) : fc.oneof(...options);
}

/** Objects with every required property and any subset of the optional ones. */
export function objectArbitrary(doc: Json, schema: Json, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = asJson(schema.properties);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = valueArbitrary(doc, property, depth);
  const requiredKeys = Object.keys(model).filter((name) => required.has(name));
  return fc.record(model, { requiredKeys });
}

/** Values of any JSON type, for wrong-typed fields. */
const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    null,
    true,
    -1,
    2 ** 31,
    2 ** 53,
    1e308,
    -0,
    '',
    [],
    {},
    { $ne: null },
    ['x'],
    'x'.repeat(5000),
  ),
);

/** Keys a client must never be able to write. */
const FORBIDDEN_KEYS = [
  'id',
  'is_admin',
  'is_superuser',
  'hashed_password',
  'owner',
  'password',
  'constructor',
  'prototype',
  'toString',
];

/** A request body variant. */
export type Body =
  | { readonly json: unknown }
  | { readonly text: string | Buffer; readonly contentType: string | undefined };

function hostileBodies(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Body> {
  return fc.oneof(
    // Valid plus keys a client may not write.
    fc
      .tuple(valid, fc.dictionary(fc.constantFrom(...FORBIDDEN_KEYS), anyJson, { maxKeys: 3 }))
      .map(([body, extra]) => ({ json: { ...body, ...extra } })),
    // Valid with one field given a value of another type.
    fc.tuple(valid, fc.string({ maxLength: 12 }), anyJson).map(([body, key, value]) => {
      const keys = Object.keys(body);
      const target = keys.length === 0 ? key : (keys[key.length % keys.length] as string);
      return { json: { ...body, [target]: value } };
    }),
    // Not an object at all.
    anyJson.map((json) => ({ json })),
    // Text that is not JSON, or JSON with a prototype key, or nothing.
    fc.constantFrom<Body>(
      { text: '{"a":', contentType: 'application/json' },
      { text: '{"__proto__":{"is_admin":true}}', contentType: 'application/json' },
      { text: '', contentType: 'application/json' },
      { text: '', contentType: undefined },
      { text: 'a=1&is_admin=true', contentType: 'application/x-www-form-urlencoded' },
      { text: '<a/>', contentType: 'application/xml' },
      { text: '{"x":1}', contentType: 'text/plain' },
      { text: `[${'['.repeat(5000)}${']'.repeat(5000)}]`, contentType: 'application/json' },
    ),
  );
}

function formText(body: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body))
    params.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  return params.toString();
}

/** Bodies for an operation's request body: mostly valid, often hostile, in each documented media type. */
export function bodyArbitrary(doc: Json, requestBody: Json): fc.Arbitrary<Body> {
  const content = asJson(requestBody.content);
  const options: fc.Arbitrary<Body>[] = [];
  for (const [mediaType, media] of Object.entries(content)) {
    const valid = objectArbitrary(doc, resolve(doc, asJson(media).schema));
    if (mediaType === 'application/x-www-form-urlencoded') {
      options.push(valid.map((body) => ({ text: formText(body), contentType: mediaType })));
    } else {
      options.push(valid.map((json) => ({ json })));
      options.push(hostileBodies(valid));
    }
  }
  return fc.oneof(...options);
}
