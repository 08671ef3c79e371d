/**
 * Helpers of the relation cases: authors, books, categories and tags created over HTTP under the
 * case prefix, and the reads the cases compare embedded records with.
 */
import assert from 'node:assert/strict';
import { expectRecord, expectRows } from '../assertions.js';
import type { CaseContext } from '../context.js';
import { type JsonObject, query } from '../http-client.js';

/** A key far above any generated one: no record has it. */
export const MISSING_ID = 2_000_000_000;

/**
 * The error path of one item of a collection in a write body: `tags.1`, the dotted form every 422
 * path takes (ajv names array items so, as it names `address.city`).
 */
export function itemPath(collection: string, index: number): string {
  return `${collection}.${index}`;
}

/** Creates an author named `<prefix>-<label>`. */
export async function createAuthor(ctx: CaseContext, label: string): Promise<JsonObject> {
  return expectRecord(await ctx.http.post('/authors', { name: `${ctx.prefix}-${label}` }), 201);
}

/** Creates a category named `<prefix>-<label>`. */
export async function createCategory(ctx: CaseContext, label: string): Promise<JsonObject> {
  return expectRecord(await ctx.http.post('/categories', { name: `${ctx.prefix}-${label}` }), 201);
}

/** Creates a tag (served as `labels`) named `<prefix>-<label>`. */
export async function createTag(ctx: CaseContext, label: string): Promise<JsonObject> {
  return expectRecord(await ctx.http.post('/labels', { name: `${ctx.prefix}-${label}` }), 201);
}

/** Creates a book titled `<prefix>-<label>` by `author`, with optional `category` and `tags`. */
export async function createBook(
  ctx: CaseContext,
  label: string,
  author: JsonObject,
  extra: JsonObject = {},
): Promise<JsonObject> {
  return expectRecord(
    await ctx.http.post('/books', { title: `${ctx.prefix}-${label}`, author: author.id, ...extra }),
    201,
  );
}

/** The keys of records, in order. */
export function ids(records: readonly JsonObject[]): unknown[] {
  return records.map((record) => record.id);
}

/** The filter that selects this case's books. */
export function ownBooks(ctx: CaseContext): Record<string, string> {
  return { 'filter[title][$like]': `${ctx.prefix}-%` };
}

/** The book labels (titles without the prefix) of listed rows, in response order. */
export function titles(ctx: CaseContext, rows: readonly JsonObject[]): string[] {
  return rows.map((row) => String(row.title).slice(ctx.prefix.length + 1));
}

/** `GET path` of one record: what an embedded record must equal. */
export async function read(ctx: CaseContext, path: string): Promise<JsonObject> {
  return expectRecord(await ctx.http.get(path), 200);
}

/** Asserts `value` is an array of records and returns it. */
export function embeddedList(value: unknown, what: string): JsonObject[] {
  assert.ok(Array.isArray(value), `${what} is an array of records: ${JSON.stringify(value)}`);
  for (const item of value)
    assert.ok(item !== null && typeof item === 'object' && !Array.isArray(item), `${what}: records`);
  return value as JsonObject[];
}

/** Asserts `value` is a record (an embedded many-to-one) and returns it. */
export function embeddedRecord(value: unknown, what: string): JsonObject {
  assert.ok(
    value !== null && typeof value === 'object' && !Array.isArray(value),
    `${what} is an embedded record: ${JSON.stringify(value)}`,
  );
  return value as JsonObject;
}

/** The tags of a book as the API embeds them (`GET /books/{id}?include=tags`). */
export async function tagsOf(ctx: CaseContext, book: JsonObject): Promise<JsonObject[]> {
  const record = await read(ctx, `/books/${book.id}${query({ include: 'tags' })}`);
  return embeddedList(record.tags, `book ${book.id} tags`);
}

/** The keys of the books of a tag as the API embeds them (`GET /labels/{id}?include=books`). */
export async function bookIdsOfTag(ctx: CaseContext, tag: JsonObject): Promise<unknown[]> {
  const record = await read(ctx, `/labels/${tag.id}${query({ include: 'books' })}`);
  return ids(embeddedList(record.books, `tag ${tag.id} books`));
}

/** Lists this case's books with extra parameters; returns the rows. */
export async function listBooks(
  ctx: CaseContext,
  params: Readonly<Record<string, string | number>>,
): Promise<JsonObject[]> {
  return expectRows(await ctx.http.get(`/books${query({ ...ownBooks(ctx), ...params })}`));
}

/** The records of `path` (`/books`, `/labels`…) by key, as `GET /{resource}/{id}` answers them. */
export async function readAll(
  ctx: CaseContext,
  path: string,
  records: readonly JsonObject[],
): Promise<JsonObject[]> {
  return Promise.all(records.map((record) => read(ctx, `${path}/${record.id}`)));
}

/** The keys of the record's JSON object, without the primary key the framework may add. */
export function keysBesideId(record: JsonObject): string[] {
  return Object.keys(record)
    .filter((key) => key !== 'id')
    .sort();
}

/** Lists this case's authors with extra parameters, sorted by name unless told. */
export async function listAuthors(
  ctx: CaseContext,
  params: Readonly<Record<string, string | number>>,
): Promise<JsonObject[]> {
  const own = { 'filter[name][$like]': `${ctx.prefix}-%`, sort: 'name' };
  return expectRows(await ctx.http.get(`/authors${query({ ...own, ...params })}`));
}
