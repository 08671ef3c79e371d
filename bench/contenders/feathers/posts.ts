/** The posts service of the Feathers contender: KnexService with schema resolvers, validation, an ownership hook and `include=` of owners and tags. */
import { authenticate } from '@feathersjs/authentication';
import { BadRequest, Forbidden } from '@feathersjs/errors';
import type { HookContext, Id, Params } from '@feathersjs/feathers';
import { KnexService } from '@feathersjs/knex';
import {
  Ajv,
  getValidator,
  resolve,
  resolveData,
  resolveExternal,
  validateData,
  virtual,
} from '@feathersjs/schema';
import type { Knex } from 'knex';

/** A row of `posts` as knex returns it, plus the `owner` the API exposes instead of `owner_id`, and the included tags. */
export interface PostRecord {
  id: number;
  title: string;
  body: string | null;
  owner_id?: number;
  owner?: number | PublicUser | null;
  tags?: TagRecord[];
}

/** A tag as a post embeds it. */
interface TagRecord {
  id: number;
  name: string;
}

interface Caller {
  id: number;
  is_admin: boolean | number;
}

/** A user as an embedded owner shows it: its public fields. */
interface PublicUser {
  id: number;
  username: string;
  email: string;
  age: number;
  is_admin: boolean;
  verified: boolean;
}

/** The relations a list asked for with `include=`, and the records loaded for its page. */
interface Included {
  readonly names: ReadonlySet<string>;
  owners?: Map<number, PublicUser>;
  tags?: Map<number, TagRecord[]>;
}

type PostParams = Params & { user?: Caller; existing?: PostRecord; included?: Included };
type Ctx = HookContext;

const dataValidator = getValidator(
  {
    $id: 'PostData',
    type: 'object',
    required: ['title'],
    properties: { title: { type: 'string', minLength: 1 }, body: { type: ['string', 'null'] } },
  },
  new Ajv({ coerceTypes: false }),
);

/**
 * The API shows the owner as `owner` (the user id, or the user when included), never the column
 * name; `tags` only when included.
 */
const externalResolver = resolve<PostRecord, Ctx>({
  properties: {
    owner: virtual<PostRecord, number | PublicUser | null, Ctx>(async (post, context) => {
      const owners = (context.params as PostParams).included?.owners;
      return owners === undefined ? (post.owner_id as number) : (owners.get(post.owner_id as number) ?? null);
    }),
    owner_id: async () => undefined,
    tags: virtual<PostRecord, TagRecord[] | undefined, Ctx>(async (post, context) => {
      const tags = (context.params as PostParams).included?.tags;
      return tags === undefined ? undefined : (tags.get(post.id) ?? []);
    }),
  },
});

/** The owner comes from the token on create and stays unchanged on update; clients cannot set it. */
const dataResolver = resolve<PostRecord, Ctx>({
  properties: {
    id: async () => undefined,
    owner: async () => undefined,
    owner_id: async (_value, _post, context) => {
      const params = context.params as PostParams;
      return context.method === 'create' ? params.user?.id : params.existing?.owner_id;
    },
  },
});

function assertOwnerOrAdmin(post: PostRecord, user: Caller | undefined): void {
  if (!user || (post.owner_id !== user.id && !user.is_admin))
    throw new Forbidden('Not the owner of this post');
}

/** Before update/remove: load the record raw and check ownership before anything changes. */
const ownerOrAdmin = async (context: Ctx): Promise<void> => {
  const service = context.service as KnexService<PostRecord>;
  const params = context.params as PostParams;
  const existing = await service._get(context.id as Id);
  assertOwnerOrAdmin(existing, params.user);
  params.existing = existing;
};

/** After get on the secure profile: the record is already loaded, check who may see it. */
const ownerOrAdminAfterGet = async (context: Ctx): Promise<void> => {
  assertOwnerOrAdmin(context.result as PostRecord, (context.params as PostParams).user);
};

/** The relations `include=` names (comma lists, the parameter may repeat); 400 for any other name. */
function includeNames(raw: unknown): Set<string> {
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const names = new Set(values.flatMap((value) => String(value).split(',').filter(Boolean)));
  for (const name of names) {
    if (name !== 'owner' && name !== 'tags') throw new BadRequest(`include: no relation "${name}"`);
  }
  return names;
}

/** Our query contract (`limit`, `offset`, id order, `count=false`, `include=`) mapped onto Feathers' `$limit`/`$skip`/`$sort`/`paginate`. */
const mapListQuery = async (context: Ctx): Promise<void> => {
  const { limit, offset, count, include } = (context.params.query ?? {}) as Record<
    string,
    string | undefined
  >;
  const names = includeNames(include);
  if (names.size > 0) (context.params as PostParams).included = { names };
  context.params.query = {
    $limit: limit === undefined ? 100 : Number(limit),
    $skip: offset === undefined ? 0 : Number(offset),
    $sort: { id: 1 },
  };
  // Without pagination Feathers runs no count query.
  if (count === 'false') context.params.paginate = false;
};

/** Paginated results become a plain array with the total in `X-Total-Count`, like the other contenders. */
const unwrapPage = async (context: Ctx): Promise<void> => {
  if (Array.isArray(context.result)) return;
  const page = context.result as { total: number; data: PostRecord[] };
  context.http = { ...context.http, headers: { 'X-Total-Count': String(page.total) } };
  context.result = page.data;
};

/** After a list that includes relations: the page's owners and tags in one knex query each, for the resolver to embed. */
const loadIncluded =
  (db: Knex) =>
  async (context: Ctx): Promise<void> => {
    const included = (context.params as PostParams).included;
    if (included === undefined) return;
    const posts = context.result as PostRecord[];
    if (included.names.has('owner')) {
      const ids = [...new Set(posts.map((post) => post.owner_id as number))];
      const users = await db('users')
        .select('id', 'username', 'email', 'age', 'is_admin', 'verified')
        .whereIn('id', ids);
      // SQLite hands booleans over as 0/1.
      included.owners = new Map(
        users.map((user: PublicUser) => [
          user.id,
          { ...user, is_admin: Boolean(user.is_admin), verified: Boolean(user.verified) },
        ]),
      );
    }
    if (included.names.has('tags')) {
      const rows: { post_id: number; id: number; name: string }[] = await db('post_tags as pt')
        .join('tags as t', 't.id', 'pt.tag_id')
        .select('pt.post_id', 't.id', 't.name')
        .whereIn(
          'pt.post_id',
          posts.map((post) => post.id),
        )
        .orderBy([{ column: 'pt.post_id' }, { column: 't.id' }]);
      const tags = new Map<number, TagRecord[]>();
      for (const { post_id, id, name } of rows) {
        const list = tags.get(post_id);
        if (list === undefined) tags.set(post_id, [{ id, name }]);
        else list.push({ id, name });
      }
      included.tags = tags;
    }
  };

/** Registers `posts` on the app with the hooks of the chosen profile. */
export function registerPosts(
  app: {
    use: (path: string, service: unknown, options?: object) => unknown;
    service: (path: string) => { hooks: (map: object) => void };
  },
  db: Knex,
  secureReads: boolean,
): void {
  app.use(
    'posts',
    new KnexService<PostRecord>({ Model: db, name: 'posts', paginate: { default: 100, max: 1000 } }),
    {
      methods: ['find', 'get', 'create', 'update', 'remove'],
    },
  );
  const readAuth = secureReads ? [authenticate('jwt')] : [];
  app.service('posts').hooks({
    around: {
      all: [resolveExternal(externalResolver)],
      find: readAuth,
      get: readAuth,
      create: [authenticate('jwt')],
      update: [authenticate('jwt')],
      remove: [authenticate('jwt')],
    },
    before: {
      find: [mapListQuery],
      create: [validateData(dataValidator), resolveData(dataResolver)],
      update: [ownerOrAdmin, validateData(dataValidator), resolveData(dataResolver)],
      remove: [ownerOrAdmin],
    },
    after: {
      find: [unwrapPage, loadIncluded(db)],
      get: secureReads ? [ownerOrAdminAfterGet] : [],
      remove: [
        async (context: Ctx) => {
          context.http = { ...context.http, status: 204 };
        },
      ],
    },
  });
}
