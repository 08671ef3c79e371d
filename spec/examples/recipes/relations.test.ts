/**
 * The relations recipe (docs/relations.md) over HTTP on every database target: include= one and
 * two levels deep, fields= by dotted path, the per-relation cap, the related routers' access rules,
 * many-to-many writes, filters and sort through a many-to-one, the OpenAPI document, and (on
 * SQLite, where statements can be counted in-process) a fixed number of statements per page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLibraryApp } from '../../../examples/recipes/relations/app.js';
import { countStatements } from '../../../examples/recipes/relations/count-statements.js';
import type { Application, AuthRouter } from '../../../lib/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

type Row = Record<string, unknown>;

const PASSWORD = 'correct horse battery';
const ADMIN = { username: 'librarian', password: 'librarian password 1', email: 'librarian@example.com' };

/** The problem body's `errors[].path`. */
function errorPaths(body: unknown): string[] {
  return ((body as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path);
}

for (const target of databaseTargets()) {
  describe(`relations recipe on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let app: Application;
    let auth: AuthRouter;
    let server: TestServer;
    const tokens: Record<'ann' | 'admin', { authorization: string }> = {
      ann: { authorization: '' },
      admin: { authorization: '' },
    };
    let annId: number;
    const at: Record<string, Row> = {};

    /** Sends a request and parses its JSON body. */
    async function call(
      path: string,
      init: { method?: string; json?: unknown; as?: keyof typeof tokens } = {},
    ): Promise<{ status: number; body: Row & Row[] }> {
      const response = await server.request(path, {
        method: init.method ?? 'GET',
        ...(init.json === undefined ? {} : { json: init.json }),
        ...(init.as === undefined ? {} : { headers: tokens[init.as] }),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
    }

    /** A 200 answer's body. */
    async function ok(path: string, as?: keyof typeof tokens): Promise<Row & Row[]> {
      const response = await call(path, as === undefined ? {} : { as });
      assert.equal(response.status, 200, `${path}: ${JSON.stringify(response.body)}`);
      return response.body;
    }

    /** Creates a record and remembers it under `name`. */
    async function create(name: string, path: string, json: Row, as?: keyof typeof tokens): Promise<Row> {
      const created = await call(path, { method: 'POST', json, ...(as === undefined ? {} : { as }) });
      assert.equal(created.status, 201, `${path}: ${JSON.stringify(created.body)}`);
      at[name] = created.body;
      return created.body;
    }

    const id = (name: string): unknown => at[name]?.id;
    const names = (records: unknown, key = 'name'): unknown[] =>
      (records as Row[]).map((record) => record[key]);

    before(async () => {
      database = await createTestDatabase(target);
      ({ app, auth } = await createLibraryApp(database.url));
      server = await serve(app.callback());
      await auth.ensure_admin(ADMIN);
      const registered = await call('/register', {
        method: 'POST',
        json: { username: 'ann', email: 'ann@example.com', password: PASSWORD },
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      annId = Number(registered.body.id);
      for (const [who, username, password] of [
        ['ann', 'ann', PASSWORD],
        ['admin', ADMIN.username, ADMIN.password],
      ] as const) {
        const login = await call('/login', { method: 'POST', json: { username, password } });
        assert.equal(login.status, 200, JSON.stringify(login.body));
        tokens[who] = { authorization: `Bearer ${String(login.body.access_token)}` };
      }

      await create('leGuin', '/authors', { name: 'Ursula K. Le Guin', email: 'ursula@example.com' });
      await create('tolkien', '/authors', { name: 'J. R. R. Tolkien' });
      await create('fantasy', '/genres', { name: 'fantasy' });
      await create('sf', '/genres', { name: 'science fiction' });
      await create('magic', '/topics', { name: 'magic' });
      await create('islands', '/topics', { name: 'islands' });
      await create('rings', '/topics', { name: 'rings' });
      // Written against key order: embedded topics come ordered by key whatever order was sent.
      await create('earthsea', '/books', {
        title: 'A Wizard of Earthsea',
        author: id('leGuin'),
        genre: id('fantasy'),
        topics: [id('islands'), id('magic')],
      });
      await create('dispossessed', '/books', {
        title: 'The Dispossessed',
        author: id('leGuin'),
        genre: id('sf'),
      });
      await create('hobbit', '/books', { title: 'The Hobbit', author: id('tolkien'), topics: [id('rings')] });
      await create('review', '/reviews', { book: id('earthsea'), rating: 5, text: 'A classic.' }, 'ann');
    });
    after(async () => {
      await server?.close();
      await app?.close();
      await database?.drop();
    });

    describe('include=', () => {
      it('embeds a many-to-one as the related record, or null', async () => {
        const books = await ok('/books?include=author,genre&sort=id');
        assert.deepEqual(
          books.map((book) => [
            book.title,
            (book.author as Row).name,
            (book.genre as Row | null)?.name ?? null,
          ]),
          [
            ['A Wizard of Earthsea', 'Ursula K. Le Guin', 'fantasy'],
            ['The Dispossessed', 'Ursula K. Le Guin', 'science fiction'],
            ['The Hobbit', 'J. R. R. Tolkien', null],
          ],
        );
        assert.deepEqual(
          books[0]?.author,
          await ok(`/authors/${id('leGuin')}`),
          'as the author’s own route serves it',
        );
        assert.equal(
          'email' in ((books[0]?.author ?? {}) as Row),
          false,
          'hidden fields stay hidden when embedded',
        );
        const plain = await ok(`/books/${id('earthsea')}`);
        assert.equal(plain.author, id('leGuin'), 'without include=, the key');
        assert.equal('topics' in plain, false, 'without include=, no collection');
      });

      it('embeds to-many relations as arrays ordered by key', async () => {
        const book = await ok(`/books/${id('earthsea')}?include=topics`);
        assert.deepEqual(names(book.topics), ['magic', 'islands']);
        const author = await ok(`/authors/${id('leGuin')}?include=books`);
        assert.deepEqual(names(author.books, 'title'), ['A Wizard of Earthsea', 'The Dispossessed']);
        const tolkien = (await ok('/authors?include=books&sort=id'))[1];
        assert.deepEqual(names(tolkien?.books, 'title'), ['The Hobbit']);
      });

      it('goes two levels deep with a dotted path, not three', async () => {
        const author = await ok(`/authors/${id('leGuin')}?include=books.topics,books.genre`);
        assert.deepEqual(
          (author.books as Row[]).map((book) => [book.title, names(book.topics), (book.genre as Row).name]),
          [
            ['A Wizard of Earthsea', ['magic', 'islands'], 'fantasy'],
            ['The Dispossessed', [], 'science fiction'],
          ],
        );
        const deep = await call('/authors?include=books.topics.books');
        assert.equal(deep.status, 400);
        assert.equal(deep.body.code, 'invalid_query');
      });

      it('refuses names the router does not offer', async () => {
        for (const path of ['/books?include=title', '/books?include=publisher', '/topics?include=books']) {
          const refused = await call(path);
          assert.equal(refused.status, 400, path);
          assert.equal(refused.body.code, 'invalid_query');
        }
      });

      it('selects fields of an embedded record with a dotted fields= name', async () => {
        const [book] = await ok('/books?include=author&fields=title,author.name&sort=id&limit=1');
        assert.deepEqual(book, { title: 'A Wizard of Earthsea', author: { name: 'Ursula K. Le Guin' } });
        const [deep] = await ok(
          '/books?include=author.books&fields=title,author.books.title&sort=id&limit=1',
        );
        assert.deepEqual(deep, {
          title: 'A Wizard of Earthsea',
          author: {
            ...(await ok(`/authors/${id('leGuin')}`)),
            books: [{ title: 'A Wizard of Earthsea' }, { title: 'The Dispossessed' }],
          },
        });
        const one = await ok(`/books/${id('earthsea')}?include=author&fields=title,author.name`);
        assert.deepEqual(
          one,
          { title: 'A Wizard of Earthsea', author: { name: 'Ursula K. Le Guin' } },
          'the read route selects as the list does',
        );
        assert.equal(
          (await call('/books?fields=title,author.name')).status,
          400,
          'author.name needs include=author',
        );
      });

      it('embeds at most the router’s include_limit records of one relation', async () => {
        const prolific = await create('prolific', '/authors', { name: 'Prolific' });
        const written: unknown[] = [];
        for (let i = 1; i <= 12; i++) {
          written.push((await create(`p${i}`, '/books', { title: `Volume ${i}`, author: prolific.id })).id);
        }
        const author = await ok(`/authors/${prolific.id}?include=books`);
        assert.deepEqual(
          (author.books as Row[]).map((book) => book.id),
          written.slice(0, 10),
          'the first 10 by key',
        );
        for (const key of written)
          assert.equal((await call(`/books/${key}`, { method: 'DELETE' })).status, 204);
      });
    });

    describe('access', () => {
      it('applies the related router’s authentication: reviews need a signed-in caller', async () => {
        const anonymous = await call(`/books/${id('earthsea')}?include=reviews`);
        assert.equal(anonymous.status, 401);
        const book = await ok(`/books/${id('earthsea')}?include=reviews`, 'ann');
        assert.deepEqual(names(book.reviews, 'text'), ['A classic.']);
        assert.equal((book.reviews as Row[])[0]?.owner, annId);
      });

      it('refuses with 403 naming the relation when the related router narrows what the caller reads', async () => {
        for (const path of [`/books/${id('earthsea')}?include=reviews.owner`, '/reviews?include=owner']) {
          const refused = await call(path, { as: 'ann' });
          assert.equal(refused.status, 403, path);
          assert.equal(refused.body.code, 'forbidden');
          assert.match(String(refused.body.detail), /owner/);
        }
        const filtered = await call('/reviews?filter[owner.username]=ann', { as: 'ann' });
        assert.equal(filtered.status, 403, 'filters through the relation follow the same rule');

        const book = await ok(`/books/${id('earthsea')}?include=reviews.owner`, 'admin');
        const owner = (book.reviews as Row[])[0]?.owner as Row;
        assert.equal(owner.username, 'ann');
        assert.equal('hashed_password' in owner, false);
      });
    });

    describe('many-to-many writes', () => {
      it('replaces the set with an array of keys, keeps it when absent, clears it with []', async () => {
        const path = `/books/${id('dispossessed')}`;
        const topics = async (): Promise<unknown[]> => names((await ok(`${path}?include=topics`)).topics);
        assert.deepEqual(await topics(), []);
        assert.equal(
          (await call(path, { method: 'PATCH', json: { topics: [id('rings'), id('magic')] } })).status,
          200,
        );
        assert.deepEqual(await topics(), ['magic', 'rings']);
        assert.equal(
          (await call(path, { method: 'PATCH', json: { title: 'The Dispossessed' } })).status,
          200,
        );
        assert.deepEqual(await topics(), ['magic', 'rings'], 'a body without topics keeps them');
        assert.equal((await call(path, { method: 'PUT', json: { topics: [id('islands')] } })).status, 200);
        assert.deepEqual(await topics(), ['islands']);
        assert.equal((await call(path, { method: 'PUT', json: { topics: [] } })).status, 200);
        assert.deepEqual(await topics(), []);
      });

      it('refuses unknown and repeated keys with 422 naming each index, writing nothing', async () => {
        const unknown = await call('/books', {
          method: 'POST',
          json: { title: 'Nothing', author: id('tolkien'), topics: [id('magic'), 999_999] },
        });
        assert.equal(unknown.status, 422);
        assert.deepEqual(errorPaths(unknown.body), ['topics.1']);
        const repeated = await call(`/books/${id('hobbit')}`, {
          method: 'PATCH',
          json: { topics: [id('magic'), id('magic')] },
        });
        assert.equal(repeated.status, 422);
        assert.deepEqual(errorPaths(repeated.body), ['topics.1']);
        assert.deepEqual(names((await ok(`/books/${id('hobbit')}?include=topics`)).topics), ['rings']);
        assert.deepEqual(await ok('/books?filter[title]=Nothing'), []);
      });

      it('does not write a one-to-many or the inverse side of a many-to-many', async () => {
        assert.equal(
          (await call(`/authors/${id('tolkien')}`, { method: 'PATCH', json: { books: [id('earthsea')] } }))
            .status,
          200,
        );
        assert.equal((await ok(`/books/${id('earthsea')}`)).author, id('leGuin'), 'dropped');
        assert.equal(
          (await call(`/topics/${id('rings')}`, { method: 'PATCH', json: { books: [] } })).status,
          200,
        );
        assert.deepEqual(
          names((await ok(`/books/${id('hobbit')}?include=topics`)).topics),
          ['rings'],
          'dropped',
        );
      });
    });

    describe('filters and sort through a many-to-one', () => {
      it('filter[author.name] and filter[genre.name][$in]', async () => {
        const byAuthor = await ok('/books?filter[author.name]=Ursula K. Le Guin&sort=id');
        assert.deepEqual(names(byAuthor, 'title'), ['A Wizard of Earthsea', 'The Dispossessed']);
        const byGenre = await ok('/books?filter[genre.name][$in]=fantasy,horror');
        assert.deepEqual(names(byGenre, 'title'), ['A Wizard of Earthsea']);
        const byPattern = await ok('/books?filter[author.name][$like]=J.%25&sort=id');
        assert.deepEqual(names(byPattern, 'title'), ['The Hobbit']);
      });

      it('sort=genre.name,-id', async () => {
        const sorted = await ok(
          '/books?filter[genre.name][$in]=fantasy,science fiction&sort=-genre.name,-id',
        );
        assert.deepEqual(names(sorted, 'title'), ['The Dispossessed', 'A Wizard of Earthsea']);
      });

      it('refuses hidden fields, $exists, and keyset paging on a related sort key', async () => {
        for (const path of [
          '/books?filter[author.email]=ursula@example.com',
          '/books?sort=author.email',
          '/books?filter[genre.name][$exists]=true',
          '/books?sort=genre.name&after=',
          '/books?filter[topics.name]=magic',
        ]) {
          const refused = await call(path);
          assert.equal(refused.status, 400, path);
          assert.equal(refused.body.code, 'invalid_query', path);
        }
      });
    });

    describe('OpenAPI', () => {
      it('offers include as an enum, embedded records as key-or-record, writable collections as key arrays', async () => {
        const document = (await ok('/openapi.json')) as unknown as {
          paths: Record<
            string,
            Record<string, { parameters?: { name: string; schema?: { items?: { enum?: string[] } } }[] }>
          >;
          components: { schemas: Record<string, { properties?: Record<string, Row & { items?: Row }> }> };
        };
        const include = document.paths['/books']?.get?.parameters?.find(
          (parameter) => parameter.name === 'include',
        );
        const offered = include?.schema?.items?.enum ?? [];
        for (const name of ['author', 'genre', 'topics', 'reviews', 'author.books', 'reviews.owner']) {
          assert.ok(offered.includes(name), `include offers ${name}`);
        }
        assert.equal(
          document.paths['/topics']?.get?.parameters?.some((parameter) => parameter.name === 'include'),
          false,
          'include: false offers none',
        );
        const { Book, BookCreate, BookUpdate } = document.components.schemas;
        assert.equal((Book?.properties?.author?.oneOf as unknown[] | undefined)?.length, 2, 'key or record');
        assert.equal(Book?.properties?.topics?.type, 'array');
        assert.equal(Book?.properties?.topics?.maxItems, 100);
        assert.equal(document.components.schemas.Author?.properties?.books?.maxItems, 10);
        for (const write of [BookCreate, BookUpdate]) {
          assert.equal(write?.properties?.topics?.type, 'array');
          assert.equal(write?.properties?.topics?.items?.type, 'integer');
          assert.equal(write?.properties?.reviews, undefined, 'a one-to-many is not written');
        }
      });
    });

    if (target.startsWith('sqlite')) {
      describe('statements', () => {
        it('a page costs the same statements whatever its size: no N+1', async () => {
          for (let i = 1; i <= 60; i++) {
            await create(`bulk${i}`, '/books', {
              title: `Bulk ${i}`,
              author: id(i % 2 === 0 ? 'leGuin' : 'tolkien'),
              genre: id('fantasy'),
              topics: [id('magic'), id('rings')],
            });
          }
          const page = (limit: number) =>
            countStatements(() => ok(`/books?include=author,genre,topics&count=false&limit=${limit}`));
          const small = await page(5);
          const large = await page(50);
          assert.equal(small.result.length, 5);
          assert.equal(large.result.length, 50);
          // The page, one statement per many-to-one, two per to-many (its links, then its records).
          assert.equal(large.statements, 1 + 1 + 1 + 2);
          assert.equal(small.statements, large.statements);
        });
      });
    }
  });
}
