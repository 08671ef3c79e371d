/**
 * Hostile input: malformed and deeply nested JSON, wrong content types, bodies over the limit
 * (plain, chunked and compressed bombs), NUL bytes, lone surrogates, invalid UTF-8, and text that
 * looks like SQL. Every one gets a 4xx from the catalogue or is stored verbatim, never a 5xx.
 */
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expectAll, expectStatus, type SecurityCase, single } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse, objectOf } from '../support/client.js';

const MiB = 1024 * 1024;

function raw(
  body: string | Uint8Array,
  contentType: string | undefined,
  extra: Record<string, string> = {},
): HttpRequest {
  return {
    method: 'POST',
    path: '/categories',
    headers: { ...(contentType === undefined ? {} : { 'content-type': contentType }), ...extra },
    body,
  };
}

let bombs: { gzip: Buffer; deflate: Buffer; br: Buffer } | undefined;

/** A JSON body that inflates to 64 MiB (64 times the limit), compressed three ways (made once). */
export function compressedBombs(): { gzip: Buffer; deflate: Buffer; br: Buffer } {
  if (bombs === undefined) {
    const inflated = Buffer.alloc(64 * MiB, 0x61);
    inflated.write('{"name":"', 0);
    inflated.write('"}', inflated.length - 2);
    bombs = {
      gzip: gzipSync(inflated, { level: 9 }),
      deflate: deflateSync(inflated, { level: 9 }),
      br: brotliCompressSync(inflated),
    };
  }
  return bombs;
}

function nested(depth: number, open: string, close: string, inner: string): string {
  return `{"name":${open.repeat(depth)}${inner}${close.repeat(depth)}}`;
}

/** A category name that is new for each call (unique column). */
let serial = 0;
function fresh(prefix: string): string {
  serial += 1;
  return `${prefix}_${serial}`;
}

/** The input cases. */
export const inputCases: readonly SecurityCase[] = [
  {
    name: 'malformed JSON bodies answer 400 malformed_json',
    group: 'input',
    requests: () =>
      [
        '{"name": ',
        '{"name":"a"} trailing',
        "{'name':'a'}",
        '{"name":"a",}',
        '{"name":NaN}',
        '\u0000{}',
        '{"name":"\\x41"}',
      ].map((body) => raw(body, 'application/json')),
    expect: (responses) => expectAll(responses, 400, 'malformed_json'),
  },
  {
    name: 'JSON that is not an object answers 400 or 422, never 5xx',
    group: 'input',
    requests: () =>
      ['[{"name":"a"}]', '"name"', '42', 'null', 'true', '[]', ''].map((body) =>
        raw(body, 'application/json'),
      ),
    expect: (responses) => expectAll(responses, [400, 422]),
  },
  {
    name: 'deeply nested JSON (100 000 levels of arrays, of objects, and with a __proto__ at the bottom)',
    group: 'input',
    requests: () => [
      raw(nested(100_000, '[', ']', '1'), 'application/json'),
      raw(nested(100_000, '{"a":', '}', '1'), 'application/json'),
      raw(nested(50_000, '{"a":', '}', '{"__proto__":{"is_admin":true}}'), 'application/json'),
    ],
    expect: (responses) => expectAll(responses, [400, 413, 422]),
  },
  {
    name: 'wrong or missing content types answer 415',
    group: 'input',
    requests: () => [
      raw('{"name":"ct1"}', 'text/plain'),
      raw('<name>ct2</name>', 'application/xml'),
      raw(
        '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nct3\r\n--x--\r\n',
        'multipart/form-data; boundary=x',
      ),
      raw('name=ct4', 'application/x-www-form-urlencoded'),
      raw('{"name":"ct5"}', undefined),
      raw('{"name":"ct6"}', 'application/json-patch+json'),
      raw('{"name":"ct7"}', 'image/png'),
    ],
    expect: (responses) => expectAll(responses, 415, 'unsupported_media_type'),
  },
  {
    name: 'an unsupported content encoding answers 415',
    group: 'input',
    requests: () => [
      raw('{"name":"ce1"}', 'application/json', { 'content-encoding': 'compress' }),
      raw('{"name":"ce2"}', 'application/json', { 'content-encoding': 'zstd' }),
      raw('{"name":"ce3"}', 'application/json', { 'content-encoding': 'gzip, gzip' }),
    ],
    expect: (responses) => expectAll(responses, 415, 'unsupported_media_type'),
  },
  {
    name: 'a JSON body declared in a charset other than UTF-8 answers 415',
    group: 'input',
    requests: () => [
      raw(Buffer.from('{"name":"cs1"}', 'utf16le'), 'application/json; charset=utf-16'),
      raw(Buffer.from('{"name":"cs2"}', 'utf16le'), 'application/json; charset=utf-16le'),
    ],
    expect: (responses) => expectAll(responses, 415, 'unsupported_media_type'),
  },
  {
    name: 'a 2 MiB body with Content-Length answers 413',
    group: 'input',
    requests: () => [raw(`{"name":"${'a'.repeat(2 * MiB)}"}`, 'application/json')],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 413, 'payload_too_large'),
  },
  {
    name: 'a 2 MiB chunked body (no Content-Length) answers 413',
    group: 'input',
    requests: () => [{ ...raw(`{"name":"${'a'.repeat(2 * MiB)}"}`, 'application/json'), chunked: true }],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 413, 'payload_too_large'),
  },
  {
    name: 'a 2 MiB body on /register and /login answers 413',
    group: 'input',
    requests: () => [
      {
        method: 'POST',
        path: '/register',
        json: { username: 'big', email: 'big@example.com', password: 'x'.repeat(2 * MiB) },
      },
      { method: 'POST', path: '/login', json: { username: 'big', password: 'x'.repeat(2 * MiB) } },
    ],
    expect: (responses) => expectAll(responses, 413, 'payload_too_large'),
  },
  {
    name: 'compression bombs (gzip, deflate, br inflating to 64 MiB) answer 413',
    group: 'input',
    requests: () => {
      const { gzip, deflate, br } = compressedBombs();
      return [
        raw(gzip, 'application/json', { 'content-encoding': 'gzip' }),
        raw(deflate, 'application/json', { 'content-encoding': 'deflate' }),
        raw(br, 'application/json', { 'content-encoding': 'br' }),
        { ...raw(gzip, 'application/json', { 'content-encoding': 'gzip' }), chunked: true },
        {
          method: 'POST',
          path: '/login',
          headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body: gzip,
        },
      ];
    },
    expect: (responses) => expectAll(responses, 413, 'payload_too_large'),
  },
  {
    name: 'a corrupt gzip body answers 400',
    group: 'input',
    requests: () => [
      raw(
        Buffer.concat([gzipSync('{"name":"gz"}').subarray(0, 12), Buffer.from('garbage')]),
        'application/json',
        { 'content-encoding': 'gzip' },
      ),
      raw(Buffer.from('not deflate at all'), 'application/json', { 'content-encoding': 'deflate' }),
      raw(Buffer.from('not brotli at all'), 'application/json', { 'content-encoding': 'br' }),
      raw(gzipSync('{"name":"truncated"}').subarray(0, 20), 'application/json', {
        'content-encoding': 'gzip',
      }),
    ],
    expect: (responses) => expectAll(responses, 400),
  },
  {
    name: 'a small gzip body is accepted (compression itself works)',
    group: 'input',
    requests: () => [
      raw(gzipSync(JSON.stringify({ name: fresh('gzipped') })), 'application/json', {
        'content-encoding': 'gzip',
      }),
    ],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 201),
  },
  {
    name: 'NUL bytes in text fields are refused with 422',
    group: 'input',
    requests: (world) => [
      raw(JSON.stringify({ name: 'nul\u0000byte' }), 'application/json'),
      {
        method: 'POST',
        path: '/posts',
        headers: world.bearer(world.alice),
        json: { title: 'a\u0000b', body: 'c\u0000d' },
      },
      {
        method: 'POST',
        path: '/register',
        json: { username: 'nul\u0000user', email: 'nul@example.com', password: 'password\u0000123' },
      },
    ],
    expect: (responses) => expectAll(responses, 422, 'validation_failed'),
  },
  {
    name: 'lone surrogates and astral characters are stored or refused, never 5xx',
    group: 'input',
    requests: () => [
      raw(`{"name":"${fresh('lone')}\\ud800"}`, 'application/json'),
      raw(`{"name":"${fresh('lone')}\\udfff\\ud800"}`, 'application/json'),
      raw(JSON.stringify({ name: `${fresh('astral')}😀𝕏` }), 'application/json'),
    ],
    expect: (responses) => {
      expectAll(responses, [201, 422]);
      const astral = responses[2] as HttpResponse;
      expectStatus(astral, 201);
      assert.match(String(objectOf(astral).name), /😀𝕏$/, 'astral characters round-trip');
    },
  },
  {
    name: 'invalid UTF-8 bytes in a JSON body are stored or refused, never 5xx',
    group: 'input',
    requests: () => [
      raw(
        Buffer.concat([
          Buffer.from(`{"name":"${fresh('bytes')}`),
          Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
          Buffer.from('"}'),
        ]),
        'application/json',
      ),
      raw(
        Buffer.concat([
          Buffer.from(`{"name":"${fresh('overlong')}`),
          Buffer.from([0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]),
        'application/json',
      ),
    ],
    expect: (responses) => expectAll(responses, [201, 400, 422]),
  },
  {
    name: 'SQL-looking strings are stored verbatim and break nothing',
    group: 'input',
    requests: (world) => {
      const hostile = [
        "'; DROP TABLE users; --",
        '" OR ""="',
        "1' OR '1'='1' /*",
        "x'); DELETE FROM posts; --",
        '%_\\',
      ];
      return [
        ...hostile.map((name, index) => raw(JSON.stringify({ name: `${name}${index}` }), 'application/json')),
        { method: 'GET', path: `/categories?filter[name]=${encodeURIComponent("' OR '1'='1")}` },
        { method: 'GET', path: `/categories?filter[name][$like]=${encodeURIComponent("%' OR 1=1 --")}` },
        { method: 'GET', path: '/users', headers: world.bearer(world.admin) },
        { method: 'GET', path: '/posts', headers: world.bearer(world.admin) },
      ];
    },
    expect: (responses) => {
      const hostile = [
        "'; DROP TABLE users; --",
        '" OR ""="',
        "1' OR '1'='1' /*",
        "x'); DELETE FROM posts; --",
        '%_\\',
      ];
      hostile.forEach((name, index) => {
        const response = responses[index] as HttpResponse;
        expectStatus(response, 201);
        assert.equal(objectOf(response).name, `${name}${index}`, describeResponse(response));
      });
      const [byEquality, byLike, users, posts] = responses.slice(hostile.length) as HttpResponse[];
      for (const response of [byEquality, byLike]) {
        expectStatus(response as HttpResponse, 200);
        assert.deepEqual((response as HttpResponse).json, [], 'the filter value is data, not SQL');
      }
      expectStatus(users as HttpResponse, 200);
      assert.ok(((users as HttpResponse).json as unknown[]).length >= 3, 'the users are all there');
      expectStatus(posts as HttpResponse, 200);
      assert.ok(((posts as HttpResponse).json as unknown[]).length >= 2, 'the posts are all there');
    },
  },
  {
    name: 'numbers out of range or of the wrong kind answer 422',
    group: 'input',
    requests: (world) =>
      ['1e400', '9999999999', '1.5', '"18"', '-2147483649', '1e2'].map((age) => ({
        method: 'PATCH',
        path: `/users/${world.bob.id}`,
        headers: { ...world.bearer(world.bob), 'content-type': 'application/json' },
        body: `{"age":${age}}`,
      })),
    expect: (responses) => {
      expectAll(responses.slice(0, 5), 422, 'validation_failed');
      // 1e2 is the integer 100 in JSON.
      expectStatus(responses[5] as HttpResponse, 200);
    },
  },
  {
    name: 'registration refuses passwords bcrypt would truncate or that are too short',
    group: 'input',
    requests: () => [
      {
        method: 'POST',
        path: '/register',
        json: { username: 'pw_long', email: 'pw_long@example.com', password: `${'é'.repeat(36)}x` },
      },
      {
        method: 'POST',
        path: '/register',
        json: { username: 'pw_short', email: 'pw_short@example.com', password: 'short' },
      },
      {
        method: 'POST',
        path: '/register',
        json: { username: 'pw_type', email: 'pw_type@example.com', password: 12345678 },
      },
    ],
    expect: (responses) => expectAll(responses, 422, 'validation_failed'),
  },
  {
    name: 'registration refuses an empty username (such a user could never log in)',
    group: 'input',
    requests: () => [
      {
        method: 'POST',
        path: '/register',
        json: { username: '', email: 'empty_name@example.com', password: 'password 1234' },
      },
    ],
    expect: async (responses, world) => {
      expectStatus(responses[0] as HttpResponse, 422, 'validation_failed');
      assert.equal(await world.countUsers(''), 0);
    },
  },
  single(
    'input',
    'a string longer than its column answers 422 (not a database error)',
    (world) => ({
      method: 'POST',
      path: '/posts',
      headers: world.bearer(world.alice),
      json: { title: 't'.repeat(201) },
    }),
    (response) => expectStatus(response, 422, 'validation_failed'),
  ),
];
