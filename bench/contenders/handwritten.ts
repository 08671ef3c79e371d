/**
 * Contender "handwritten": the example application written by hand on Koa 3 + @koa/router + MikroORM 7,
 * the way their documentation recommends (RequestContext per request, findOne, wrap().toObject(),
 * persist/flush, jsonwebtoken with explicit algorithms and iss/aud, bcrypt verify on login).
 */
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import { RequestContext, wrap } from '@mikro-orm/core';
import Koa, { type Context } from 'koa';
import { Auth } from './handwritten/auth.js';
import { Post, type User } from './handwritten/entities.js';
import { HttpProblem, problemMiddleware } from './handwritten/errors.js';
import { openOrm } from './handwritten/orm.js';
import { parseId, readEnv } from './shared/env.js';
import { modelCount, sweepModels } from './shared/sweep.js';
import { startTelemetry } from './shared/telemetry.js';

const telemetry = startTelemetry();
const env = readEnv();
// The route sweep's extra models (none unless BENCH_MODELS > 1).
const extra = sweepModels(
  modelCount(),
  () =>
    class Sweep {
      id!: number;
      title!: string;
    },
);
const orm = await openOrm(
  env.databaseUrl,
  extra.map((sweep) => sweep.schema),
);
const auth = new Auth(env.jwtSecret);
const secureReads = env.profile === 'secure';

/** The post id from the path, or 404. */
function idOf(ctx: Context): number {
  const id = parseId(ctx.params.id);
  if (id === undefined) throw new HttpProblem(404, 'Post not found');
  return id;
}

/** Loads the post or throws 404. */
async function loadPost(id: number): Promise<Post> {
  const post = await orm.em.findOne(Post, id);
  if (!post) throw new HttpProblem(404, 'Post not found');
  return post;
}

/** Ownership policy: the owner or an admin; throws 403 otherwise. */
function assertOwnerOrAdmin(post: Post, user: User): void {
  if (post.owner.id !== user.id && !user.is_admin) throw new HttpProblem(403, 'Not the owner of this post');
}

/** Reads `title`/`body` from the JSON body, checking their types. */
function postInput(ctx: Context, requireTitle: boolean): { title?: string; body?: string | null } {
  const input = ctx.request.body as Record<string, unknown> | undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new HttpProblem(422, 'A JSON object is required');
  }
  const { title, body } = input;
  if ((requireTitle || title !== undefined) && (typeof title !== 'string' || title.length === 0)) {
    throw new HttpProblem(422, 'title must be a non-empty string');
  }
  if (body !== undefined && body !== null && typeof body !== 'string') {
    throw new HttpProblem(422, 'body must be a string or null');
  }
  return { title: title as string | undefined, body: body as string | null | undefined };
}

/** Reads a non-negative integer query parameter with a default and a maximum (400 above). */
function intParam(ctx: Context, name: string, fallback: number, max: number): number {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value > max)
    throw new HttpProblem(400, `${name} must be an integer <= ${max}`);
  return value;
}

const router = new Router();

// The route sweep's models get the same five routes, registered before posts.
for (const { model, path } of extra) {
  const find = async (ctx: Context) => {
    const row = await orm.em.findOne(model, idOf(ctx));
    if (!row) throw new HttpProblem(404, 'Not found');
    return row;
  };
  router.get(path, async (ctx) => {
    const limit = intParam(ctx, 'limit', 100, 1000);
    const offset = intParam(ctx, 'offset', 0, Number.MAX_SAFE_INTEGER);
    const [rows, total] = await orm.em.findAndCount(model, {}, { limit, offset, orderBy: { id: 'asc' } });
    ctx.set('X-Total-Count', String(total));
    ctx.body = rows.map((row) => wrap(row).toObject());
  });
  router.post(path, async (ctx) => {
    const { title } = postInput(ctx, true);
    const row = orm.em.create(model, { title: title as string });
    await orm.em.persist(row).flush();
    ctx.status = 201;
    ctx.body = wrap(row).toObject();
  });
  router.get(`${path}/:id`, async (ctx) => {
    ctx.body = wrap(await find(ctx)).toObject();
  });
  router.put(`${path}/:id`, async (ctx) => {
    const row = await find(ctx);
    const { title } = postInput(ctx, false);
    if (title !== undefined) row.title = title;
    await orm.em.flush();
    ctx.body = wrap(row).toObject();
  });
  router.delete(`${path}/:id`, async (ctx) => {
    await orm.em.remove(await find(ctx)).flush();
    ctx.status = 204;
  });
}

router.post('/login', async (ctx) => {
  const input = (ctx.request.body ?? {}) as Record<string, unknown>;
  ctx.body = await auth.login(orm.em, input.username, input.password);
});

/** The relations a post may embed, as `include=` names them. */
type PostRelation = 'owner' | 'tags';

/** The relations `include=` names (comma lists, the parameter may repeat); 400 for any other name. */
function includeParam(ctx: Context): PostRelation[] {
  const raw = ctx.query.include;
  const names = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).flatMap((value) =>
    value.split(',').filter((name) => name !== ''),
  );
  for (const name of names) {
    if (name !== 'owner' && name !== 'tags') throw new HttpProblem(400, `include: no relation "${name}"`);
  }
  return [...new Set(names as PostRelation[])];
}

/** A post as the API shows it: the owner's id, or with `include=` the owner and the tags themselves. */
function postJson(post: Post, include: readonly PostRelation[] = []): Record<string, unknown> {
  // toObject() shows an initialised collection (a new post's empty tags, too): tags only when asked for.
  const json: Record<string, unknown> = wrap(post).toObject(['tags']);
  if (include.includes('owner')) json.owner = wrap(post.owner).toObject();
  if (include.includes('tags')) json.tags = post.tags.getItems().map((tag) => wrap(tag).toObject());
  return json;
}

router.get('/posts', async (ctx) => {
  if (secureReads) await auth.requireUser(ctx, orm.em);
  const limit = intParam(ctx, 'limit', 100, 1000);
  const offset = intParam(ctx, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const include = includeParam(ctx);
  // MikroORM loads what `populate` names with the page, by its default strategy (`balanced`: the
  // owner joined to the page query, the tags by one more query for the whole page).
  const options = { limit, offset, orderBy: { id: 'asc' }, populate: include } as const;
  // `count=false` skips the total, as every contender does.
  if (ctx.query.count === 'false') {
    ctx.body = (await orm.em.find(Post, {}, options)).map((post) => postJson(post, include));
    return;
  }
  const [posts, total] = await orm.em.findAndCount(Post, {}, options);
  ctx.set('X-Total-Count', String(total));
  ctx.body = posts.map((post) => postJson(post, include));
});

router.get('/posts/:id', async (ctx) => {
  const user = secureReads ? await auth.requireUser(ctx, orm.em) : undefined;
  const post = await loadPost(idOf(ctx));
  if (user) assertOwnerOrAdmin(post, user);
  ctx.body = postJson(post);
});

router.post('/posts', async (ctx) => {
  const user = await auth.requireUser(ctx, orm.em);
  const { title, body } = postInput(ctx, true);
  const post = orm.em.create(Post, { title: title as string, body: body ?? null, owner: user });
  await orm.em.persist(post).flush();
  ctx.status = 201;
  ctx.set('Location', `/posts/${post.id}`);
  ctx.body = postJson(post);
});

router.put('/posts/:id', async (ctx) => {
  const user = await auth.requireUser(ctx, orm.em);
  const post = await loadPost(idOf(ctx));
  assertOwnerOrAdmin(post, user);
  const { title, body } = postInput(ctx, false);
  if (title !== undefined) post.title = title;
  if (body !== undefined) post.body = body;
  await orm.em.flush();
  ctx.body = postJson(post);
});

router.delete('/posts/:id', async (ctx) => {
  const user = await auth.requireUser(ctx, orm.em);
  const post = await loadPost(idOf(ctx));
  assertOwnerOrAdmin(post, user);
  await orm.em.remove(post).flush();
  ctx.status = 204;
});

const app = new Koa();
app.use(problemMiddleware());
// MikroORM's recipe for Koa: one forked EntityManager per request through AsyncLocalStorage.
app.use((_ctx, next) => RequestContext.create(orm.em, next));
app.use(bodyParser());
app.use(router.routes());
app.use(router.allowedMethods());

app.listen(env.port, '127.0.0.1', () => telemetry.ready());
