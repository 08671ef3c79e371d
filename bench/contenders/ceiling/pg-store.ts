/** The ceiling's store on pg: named (server-side prepared) statements over a pool. */
import pg from 'pg';
import { POOL_MAX } from '../shared/env.js';
import type { AuthUser, PostRow, PostTagRow, PublicUser, Store } from './store.js';

const POST_COLUMNS = 'id, title, body, owner_id as owner';

/** Connects a pool; each statement is prepared once per pooled connection by its name. */
export function pgStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  const one = async <T extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) =>
    (await pool.query<T>({ name, text, values })).rows[0];
  return {
    postById: (id) => one<PostRow>('post_by_id', `select ${POST_COLUMNS} from posts where id = $1`, [id]),
    listPosts: async (limit, offset, withTotal) => {
      const [page, count] = await Promise.all([
        pool.query<PostRow>({
          name: 'list_posts',
          text: `select ${POST_COLUMNS} from posts order by id asc limit $1 offset $2`,
          values: [limit, offset],
        }),
        withTotal
          ? pool.query<{ total: string }>({
              name: 'count_posts',
              text: 'select count(*) as total from posts',
            })
          : undefined,
      ]);
      return count === undefined
        ? { rows: page.rows }
        : { rows: page.rows, total: Number(count.rows[0]?.total ?? 0) };
    },
    createPost: async (title, body, owner) =>
      (await one<PostRow>(
        'insert_post',
        `insert into posts (title, body, owner_id) values ($1, $2, $3) returning ${POST_COLUMNS}`,
        [title, body, owner],
      )) as PostRow,
    updatePost: async (id, title, body) => {
      await pool.query({
        name: 'update_post',
        text: 'update posts set title = $1, body = $2 where id = $3',
        values: [title, body, id],
      });
    },
    deletePost: async (id) => {
      await pool.query({ name: 'delete_post', text: 'delete from posts where id = $1', values: [id] });
    },
    publicUsers: async (ids) =>
      (
        await pool.query<PublicUser>({
          name: 'public_users',
          text: 'select id, username, email, age, is_admin, verified from users where id = any($1::int[])',
          values: [ids],
        })
      ).rows,
    tagsOfPosts: async (postIds) =>
      (
        await pool.query<PostTagRow>({
          name: 'tags_of_posts',
          text: `select pt.post_id, t.id, t.name from post_tags pt join tags t on t.id = pt.tag_id
                 where pt.post_id = any($1::int[]) order by pt.post_id, t.id`,
          values: [postIds],
        })
      ).rows,
    userById: (id) =>
      one<AuthUser>('user_by_id', 'select id, hashed_password, is_admin from users where id = $1', [id]),
    userByUsername: (username) =>
      one<AuthUser>(
        'user_by_username',
        'select id, hashed_password, is_admin from users where username = $1',
        [username],
      ),
  };
}
