/** The posts service of the Feathers contender: KnexService with schema resolvers, validation and an ownership hook. */
import { authenticate } from '@feathersjs/authentication';
import { Forbidden } from '@feathersjs/errors';
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

/** A row of `posts` as knex returns it, plus the `owner` the API exposes instead of `owner_id`. */
export interface PostRecord {
  id: number;
  title: string;
  body: string | null;
  owner_id?: number;
  owner?: number;
}

interface Caller {
  id: number;
  is_admin: boolean | number;
}

type PostParams = Params & { user?: Caller; existing?: PostRecord };
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

/** The API shows the owner as `owner` (the user id), never the column name. */
const externalResolver = resolve<PostRecord, Ctx>({
  properties: {
    owner: virtual<PostRecord, number, Ctx>(async (post) => post.owner_id),
    owner_id: async () => undefined,
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

/** Our query contract (`limit`, `offset`, id order, `count=false`) mapped onto Feathers' `$limit`/`$skip`/`$sort`/`paginate`. */
const mapListQuery = async (context: Ctx): Promise<void> => {
  const { limit, offset, count } = (context.params.query ?? {}) as Record<string, string | undefined>;
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
      find: [unwrapPage],
      get: secureReads ? [ownerOrAdminAfterGet] : [],
      remove: [
        async (context: Ctx) => {
          context.http = { ...context.http, status: 204 };
        },
      ],
    },
  });
}
