/**
 * One seeded database per backend, and a private copy of it per contender and repeat, so that every
 * contender starts from the same rows and no contender's writes show up in another's run.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { type Dataset, TAG_COUNT, TAG_STEP, TAGS_CYCLE } from './dataset.js';

/** The database systems the bench runs on. */
export type Backend = 'sqlite' | 'postgres';

/** A seeded database and its copies. */
export interface BenchDatabase {
  readonly backend: Backend;
  /** A fresh copy of the seeded database; returns its DATABASE_URL. */
  copy(tag: string): Promise<string>;
  /** Removes a copy made by `copy`. */
  drop(url: string): Promise<void>;
  /** Inserts `count` posts owned by `ownerId` into a copy; returns their id range (inclusive). */
  insertPosts(url: string, ownerId: number, count: number): Promise<{ first: number; last: number }>;
  /** Adds the tables `sweep_1` … `sweep_<count>` of the route sweep's extra models to a copy. */
  createSweepTables(url: string, count: number): Promise<void>;
  /** A database with the seeded users and `rows` posts (ids 1..rows), made once and kept until `close`. */
  bigTable(rows: number): Promise<string>;
  /** Removes the seeded database and every copy still there. */
  close(): Promise<void>;
}

/** The statements that create the route sweep's tables, one per extra model. */
function sweepTables(count: number, key: string): string[] {
  return Array.from(
    { length: count },
    (_, i) => `create table if not exists sweep_${i + 1} (id ${key}, title varchar(255) not null)`,
  );
}

/** The body of a generated post: the seed's rule (one in seven has none), shared by both backends. */
const BODY_FILLER = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.';

const SQLITE_SCHEMA = `
create table users (
  id integer primary key autoincrement,
  username varchar(255) not null unique,
  email varchar(255) not null unique,
  age integer not null default 18,
  hashed_password varchar(255) not null,
  is_admin integer not null default 0,
  tokens_valid_after varchar(32) null,
  verified integer not null default 0,
  reset_token_hash varchar(64) null,
  reset_token_expires varchar(32) null,
  verify_token_hash varchar(64) null,
  verify_token_expires varchar(32) null
);
create table posts (
  id integer primary key autoincrement,
  title varchar(255) not null,
  body text null,
  owner_id integer not null references users (id) on update cascade
);
create index posts_owner_id_index on posts (owner_id);
create table tags (
  id integer primary key autoincrement,
  name varchar(255) not null unique
);
create table post_tags (
  post_id integer not null references posts (id) on update cascade on delete cascade,
  tag_id integer not null references tags (id) on update cascade on delete cascade,
  primary key (post_id, tag_id)
);`;

const PG_SCHEMA = `
create table users (
  id serial primary key,
  username varchar(255) not null unique,
  email varchar(255) not null unique,
  age int not null default 18,
  hashed_password varchar(255) not null,
  is_admin boolean not null default false,
  tokens_valid_after varchar(32) null,
  verified boolean not null default false,
  reset_token_hash varchar(64) null,
  reset_token_expires varchar(32) null,
  verify_token_hash varchar(64) null,
  verify_token_expires varchar(32) null
);
create table posts (
  id serial primary key,
  title varchar(255) not null,
  body text null,
  owner_id int not null references users (id) on update cascade
);
create index posts_owner_id_index on posts (owner_id);
create table tags (
  id serial primary key,
  name varchar(255) not null unique
);
create table post_tags (
  post_id int not null references posts (id) on update cascade on delete cascade,
  tag_id int not null references tags (id) on update cascade on delete cascade,
  primary key (post_id, tag_id)
);`;

/** Creates and seeds the database of a backend. */
export async function createDatabase(
  backend: Backend,
  data: Dataset,
  pgAdminUrl: string,
): Promise<BenchDatabase> {
  return backend === 'sqlite' ? createSqlite(data) : createPostgres(data, pgAdminUrl);
}

function createSqlite(data: Dataset): BenchDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'kma-bench-'));
  const base = join(dir, 'seed.db');
  const db = new Database(base);
  // WAL is a property of the file: every copy and every driver gets it, so writers never block readers.
  db.pragma('journal_mode = WAL');
  db.exec(SQLITE_SCHEMA);
  const insertUser = db.prepare(
    'insert into users (id, username, email, age, hashed_password) values (?, ?, ?, ?, ?)',
  );
  const insertPost = db.prepare('insert into posts (id, title, body, owner_id) values (?, ?, ?, ?)');
  const insertTag = db.prepare('insert into tags (id, name) values (?, ?)');
  const insertLink = db.prepare('insert into post_tags (post_id, tag_id) values (?, ?)');
  db.transaction(() => {
    for (let id = 1; id <= data.users; id++) {
      const u = data.user(id);
      insertUser.run(u.id, u.username, u.email, u.age, u.hashed_password);
    }
    for (let id = 1; id <= TAG_COUNT; id++) insertTag.run(id, data.tag(id).name);
    for (let id = 1; id <= data.posts; id++) {
      const p = data.post(id);
      insertPost.run(p.id, p.title, p.body, p.owner_id);
      for (const tag of data.tagsOf(id)) insertLink.run(id, tag);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let copies = 0;
  const big = new Map<number, string>();
  const users = data.users;
  return {
    backend: 'sqlite',
    async copy(tag) {
      const file = join(dir, `${tag}-${++copies}.db`);
      copyFileSync(base, file);
      return `sqlite:${file}`;
    },
    async drop(url) {
      const file = url.slice('sqlite:'.length);
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
    async insertPosts(url, ownerId, count) {
      const copy = new Database(url.slice('sqlite:'.length));
      copy.pragma('busy_timeout = 10000');
      try {
        const insert = copy.prepare(
          "insert into posts (title, body, owner_id) values ('Doomed post', null, ?)",
        );
        return copy.transaction(() => {
          const first = Number(insert.run(ownerId).lastInsertRowid);
          for (let i = 1; i < count; i++) insert.run(ownerId);
          return { first, last: first + count - 1 };
        })();
      } finally {
        copy.close();
      }
    },
    async createSweepTables(url, count) {
      const copy = new Database(url.slice('sqlite:'.length));
      try {
        copy.exec(sweepTables(count, 'integer primary key autoincrement').join(';\n'));
      } finally {
        copy.close();
      }
    },
    async bigTable(rows) {
      const known = big.get(rows);
      if (known !== undefined) return known;
      const file = join(dir, `big-${rows}.db`);
      copyFileSync(base, file);
      const db = new Database(file);
      try {
        // One statement, one transaction: a recursive sequence inserts a million rows in a few seconds.
        db.transaction(() => {
          // The big tables are for the pages scenario, which includes nothing: posts without tags.
          db.exec('delete from post_tags; delete from posts');
          db.prepare(
            `insert into posts (id, title, body, owner_id)
             with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ?)
             select i, 'Post ' || i, case when i % 7 = 0 then null else 'Body of post ' || i || '. ' || ? end, (i - 1) % ? + 1
             from seq`,
          ).run(rows, BODY_FILLER, users);
        })();
        db.exec('analyze');
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
      const url = `sqlite:${file}`;
      big.set(rows, url);
      return url;
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function createPostgres(data: Dataset, adminUrl: string): Promise<BenchDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const base = `kma_bench_${Date.now().toString(36)}_${process.pid}`;
  await admin.query(`create database ${base}`);
  const seed = new pg.Client({ connectionString: databaseUrl(adminUrl, base) });
  await seed.connect();
  try {
    await seed.query(PG_SCHEMA);
    const hashes = [0, 1, 2, 3].map((i) => data.user(i).hashed_password);
    await seed.query(
      `insert into users (id, username, email, age, hashed_password)
       select i, 'user' || i, 'user' || i || '@bench.test', 18 + i % 60, ($2::text[])[i % 4 + 1]
       from generate_series(1, $1::int) as i`,
      [data.users, hashes],
    );
    const sample = data.post(1).body ?? '';
    const filler = sample.slice(sample.indexOf('.') + 2);
    await seed.query(
      `insert into posts (id, title, body, owner_id)
       select i, 'Post ' || i, case when i % 7 = 0 then null else 'Body of post ' || i || '. ' || $3::text end, (i - 1) % $2::int + 1
       from generate_series(1, $1::int) as i`,
      [data.posts, data.users, filler],
    );
    await seed.query(
      `insert into tags (id, name) select i, 'tag' || i from generate_series(1, $1::int) as i`,
      [TAG_COUNT],
    );
    // Dataset.tagsOf as SQL: post i carries i % cycle tags, (i + k × step) % count + 1 for k below that.
    await seed.query(
      `insert into post_tags (post_id, tag_id)
       select p.i, (p.i + k * $3::int) % $4::int + 1
       from generate_series(1, $1::int) as p(i), generate_series(0, $2::int - 1) as k
       where k < p.i % $2::int`,
      [data.posts, TAGS_CYCLE, TAG_STEP, TAG_COUNT],
    );
    await seed.query(
      `select setval('users_id_seq', $1::int), setval('posts_id_seq', $2::int), setval('tags_id_seq', $3::int)`,
      [data.users, data.posts, TAG_COUNT],
    );
    await seed.query('vacuum analyze');
  } finally {
    await seed.end();
  }
  const copies = new Set<string>();
  const big = new Map<number, string>();
  let counter = 0;
  const nameOf = (url: string): string => new URL(url).pathname.slice(1);
  return {
    backend: 'postgres',
    async copy(tag) {
      const name = `${base}_${tag.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${++counter}`;
      await admin.query(`create database ${name} template ${base}`);
      copies.add(name);
      return databaseUrl(adminUrl, name);
    },
    async drop(url) {
      const name = nameOf(url);
      await admin.query(`drop database if exists ${name} with (force)`);
      copies.delete(name);
    },
    async insertPosts(url, ownerId, count) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const result = await client.query<{ first: number; last: number }>(
          `with inserted as (
             insert into posts (title, body, owner_id) select 'Doomed post', null, $1::int from generate_series(1, $2::int)
             returning id)
           select min(id) as first, max(id) as last from inserted`,
          [ownerId, count],
        );
        const row = result.rows[0];
        if (!row) throw new Error('insert returned nothing');
        return { first: row.first, last: row.last };
      } finally {
        await client.end();
      }
    },
    async createSweepTables(url, count) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(sweepTables(count, 'serial primary key').join(';\n'));
      } finally {
        await client.end();
      }
    },
    async bigTable(rows) {
      const known = big.get(rows);
      if (known !== undefined) return known;
      const name = `${base}_big_${rows}`;
      await admin.query(`create database ${name} template ${base}`);
      copies.add(name);
      const url = databaseUrl(adminUrl, name);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // The big tables are for the pages scenario, which includes nothing: posts without tags.
        await client.query('truncate post_tags, posts');
        await client.query(
          `insert into posts (id, title, body, owner_id)
           select i, 'Post ' || i, case when i % 7 = 0 then null else 'Body of post ' || i || '. ' || $2::text end, (i - 1) % $3::int + 1
           from generate_series(1, $1::int) as i`,
          [rows, BODY_FILLER, data.users],
        );
        await client.query(`select setval('posts_id_seq', $1::int)`, [rows]);
        await client.query('vacuum analyze posts');
      } finally {
        await client.end();
      }
      big.set(rows, url);
      return url;
    },
    async close() {
      for (const name of copies) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.query(`drop database if exists ${base} with (force)`);
      await admin.end();
    },
  };
}
