/** The ceiling's store on better-sqlite3: statements prepared once, executed synchronously. */
import Database from 'better-sqlite3';
import type { AuthUser, PostRow, PostTagRow, PublicUser, Store } from './store.js';

interface RawUser {
  id: number;
  hashed_password: string;
  is_admin: number;
}

const toUser = (row: RawUser | undefined): AuthUser | undefined =>
  row && { id: row.id, hashed_password: row.hashed_password, is_admin: row.is_admin === 1 };

/** A user's public fields as SQLite stores them (booleans as 0/1). */
interface RawPublicUser extends Omit<PublicUser, 'is_admin' | 'verified'> {
  is_admin: number;
  verified: number;
}

/** Opens the SQLite file and prepares every statement the routes use. */
export function sqliteStore(file: string): Store {
  const db = new Database(file);
  // The same setting MikroORM applies on connect, so both enforce the owner foreign key.
  db.pragma('foreign_keys = on');
  const postById = db.prepare<[number], PostRow>(
    'select id, title, body, owner_id as owner from posts where id = ?',
  );
  const listPosts = db.prepare<[number, number], PostRow>(
    'select id, title, body, owner_id as owner from posts order by id asc limit ? offset ?',
  );
  const countPosts = db.prepare<[], { total: number }>('select count(*) as total from posts');
  const insertPost = db.prepare<[string, string | null, number], PostRow>(
    'insert into posts (title, body, owner_id) values (?, ?, ?) returning id, title, body, owner_id as owner',
  );
  const updatePost = db.prepare<[string, string | null, number]>(
    'update posts set title = ?, body = ? where id = ?',
  );
  const deletePost = db.prepare<[number]>('delete from posts where id = ?');
  // A list of keys is bound as one JSON array, so that one prepared statement serves every page.
  const publicUsers = db.prepare<[string], RawPublicUser>(
    'select id, username, email, age, is_admin, verified from users where id in (select value from json_each(?))',
  );
  const tagsOfPosts = db.prepare<[string], PostTagRow>(
    `select pt.post_id, t.id, t.name from post_tags pt join tags t on t.id = pt.tag_id
     where pt.post_id in (select value from json_each(?)) order by pt.post_id, t.id`,
  );
  const userById = db.prepare<[number], RawUser>(
    'select id, hashed_password, is_admin from users where id = ?',
  );
  const userByUsername = db.prepare<[string], RawUser>(
    'select id, hashed_password, is_admin from users where username = ?',
  );
  return {
    postById: async (id) => postById.get(id),
    listPosts: async (limit, offset, withTotal) => ({
      rows: listPosts.all(limit, offset),
      ...(withTotal ? { total: countPosts.get()?.total ?? 0 } : {}),
    }),
    createPost: async (title, body, owner) => insertPost.get(title, body, owner) as PostRow,
    updatePost: async (id, title, body) => {
      updatePost.run(title, body, id);
    },
    deletePost: async (id) => {
      deletePost.run(id);
    },
    publicUsers: async (ids) =>
      publicUsers
        .all(JSON.stringify(ids))
        .map((row) => ({ ...row, is_admin: row.is_admin === 1, verified: row.verified === 1 })),
    tagsOfPosts: async (postIds) => tagsOfPosts.all(JSON.stringify(postIds)),
    userById: async (id) => toUser(userById.get(id)),
    userByUsername: async (username) => toUser(userByUsername.get(username)),
  };
}
