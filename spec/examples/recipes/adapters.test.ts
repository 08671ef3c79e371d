/**
 * The adapter-writing recipes (docs/adapters.md): `describeTable` over SQLite's catalogue and
 * `toApiError` over real `node:sqlite` errors.
 */
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { describeTable } from '../../../examples/recipes/adapters/describe-table.js';
import { toApiError } from '../../../examples/recipes/adapters/map-errors.js';
import { ApiError, ConfigurationError, FrameworkModel } from '../../../lib/index.js';

class Person extends FrameworkModel {}
class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';
}
class Author extends FrameworkModel {}
class Book extends FrameworkModel {}
class Enrollment extends FrameworkModel {}
class Picture extends FrameworkModel {}

function database(): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  db.exec(`
    PRAGMA foreign_keys = ON;
    CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL UNIQUE, born DATE, score REAL NOT NULL DEFAULT 0,
      nickname TEXT DEFAULT 'none', active BOOLEAN NOT NULL DEFAULT TRUE, CHECK (score >= 0));
    CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author INTEGER NOT NULL REFERENCES authors(id));
    CREATE TABLE enrollments (student INTEGER, course INTEGER, PRIMARY KEY (student, course));
    CREATE TABLE pictures (id INTEGER PRIMARY KEY, data BLOB);
  `);
  return db;
}

/** The error `run` throws. */
function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

describe('describeTable', () => {
  const db = database();

  it('reads kinds, keys, defaults and unique columns; the core decides what is writable', () => {
    const person = describeTable(db, Person);
    assert.equal(person.table, 'people');
    assert.equal(person.resource, 'people');
    assert.equal(person.primaryKey, 'id');
    const shape = Object.fromEntries(
      person.fields.map((field) => [
        field.name,
        [field.type, field.required, field.writable, field.unique, field.default ?? null],
      ]),
    );
    assert.deepEqual(shape, {
      id: ['integer', false, false, true, null],
      name: ['string', true, true, true, null],
      born: ['date', false, true, false, null],
      score: ['number', false, true, false, 0],
      nickname: ['text', false, true, false, 'none'],
      active: ['boolean', false, true, false, true],
    });
    assert.equal(person.fieldsByName.get('name')?.maxLength, 100);
    assert.equal(person.fieldsByName.get('born')?.nullable, true);
  });

  it('honours __tablename__ and resolves foreign keys to the other models', () => {
    assert.equal(describeTable(db, Tag).table, 'labels');
    const author = describeTable(db, Book, [Author, Book]).fieldsByName.get('author');
    assert.deepEqual(author?.relation, {
      kind: 'many-to-one',
      target: 'Author',
      targetModel: Author,
      targetKey: 'id',
    });
    assert.equal(author?.type, 'integer');
  });

  it('refuses composite keys, unknown tables and types without a JSON form at registration', () => {
    assert.throws(() => describeTable(db, Enrollment), /composite primary key \(student, course\)/);
    assert.throws(() => describeTable(db, class Ghost extends FrameworkModel {}), ConfigurationError);
    assert.throws(() => describeTable(db, Picture), /pictures\.data: type "BLOB" has no JSON form/);
  });
});

describe('toApiError', () => {
  const db = database();
  const people = describeTable(db, Person);
  const books = describeTable(db, Book, [Author, Book]);
  db.exec("INSERT INTO people (name) VALUES ('ann')");

  it('unique → 409 naming the field', () => {
    const error = toApiError(
      caught(() => db.exec("INSERT INTO people (name) VALUES ('ann')")),
      people,
    );
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 409);
    assert.deepEqual(error.errors, [{ path: 'name', message: 'is already taken' }]);
  });

  it('not null and check → 422', () => {
    const missing = toApiError(
      caught(() => db.exec('INSERT INTO people (name) VALUES (NULL)')),
      people,
    );
    assert.ok(missing instanceof ApiError);
    assert.deepEqual([missing.status, missing.errors], [422, [{ path: 'name', message: 'is required' }]]);
    const negative = toApiError(
      caught(() => db.exec("INSERT INTO people (name, score) VALUES ('bob', -1)")),
      people,
    );
    assert.ok(negative instanceof ApiError);
    assert.equal(negative.code, 'validation_failed');
  });

  it('a dangling reference → 422 naming the written relation', () => {
    const error = toApiError(
      caught(() => db.exec("INSERT INTO books (title, author) VALUES ('x', 99)")),
      books,
      ['title', 'author'],
    );
    assert.ok(error instanceof ApiError);
    assert.deepEqual(
      [error.status, error.errors],
      [422, [{ path: 'author', message: 'references a record that does not exist' }]],
    );
  });

  it('a locked database → 503; other errors pass unchanged', async () => {
    const file = join(tmpdir(), `kma-recipe-${process.pid}-${Date.now()}.sqlite`);
    const first = new DatabaseSync(file);
    const second = new DatabaseSync(file, { timeout: 0 });
    try {
      first.exec('CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT); BEGIN EXCLUSIVE');
      const error = toApiError(
        caught(() => second.exec("INSERT INTO people (name) VALUES ('x')")),
        people,
      );
      assert.ok(error instanceof ApiError);
      assert.deepEqual([error.status, error.headers['Retry-After']], [503, '5']);
    } finally {
      first.close();
      second.close();
      await rm(file, { force: true });
    }
    const bug = new TypeError('not a database error');
    assert.equal(toApiError(bug, people), bug);
  });
});
