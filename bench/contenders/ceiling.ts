/**
 * Contender "ceiling": the same routes on bare node:http with prepared statements (better-sqlite3 or pg),
 * JWT only where the route needs a caller. What a request costs with no framework at all.
 */
import { createSecretKey } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { hash, verify } from '@node-rs/bcrypt';
import jwt from 'jsonwebtoken';
import { HttpProblem, readJson, sendError, sendJson } from './ceiling/http.js';
import { pgStore } from './ceiling/pg-store.js';
import { sqliteStore } from './ceiling/sqlite-store.js';
import type { AuthUser, PostRow, PublicUser, Store } from './ceiling/store.js';
import { JWT_AUDIENCE, JWT_ISSUER, parseId, readEnv, sqliteFile, TOKEN_TTL_SECONDS } from './shared/env.js';
import { startTelemetry } from './shared/telemetry.js';

const telemetry = startTelemetry();
const env = readEnv();
const file = sqliteFile(env.databaseUrl);
const store: Store = file !== undefined ? sqliteStore(file) : pgStore(env.databaseUrl);
const key = createSecretKey(Buffer.from(env.jwtSecret));
const dummyHash = await hash('not-a-real-password', { cost: 10 });
const secureReads = env.profile === 'secure';

/** The caller of the request, reloaded by the token's `sub`; 401 otherwise. */
async function requireUser(req: IncomingMessage): Promise<AuthUser> {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) throw new HttpProblem(401, 'Missing bearer token');
  let id = Number.NaN;
  try {
    const payload = jwt.verify(header.slice(7), key, {
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
    });
    if (typeof payload === 'object' && typeof payload.exp === 'number' && typeof payload.sub === 'string') {
      id = Number(payload.sub);
    }
  } catch {
    id = Number.NaN;
  }
  const user = Number.isInteger(id) ? await store.userById(id) : undefined;
  if (!user) throw new HttpProblem(401, 'Invalid token');
  return user;
}

async function loadOwned(id: number | undefined, user: AuthUser | undefined): Promise<PostRow> {
  const post = id === undefined ? undefined : await store.postById(id);
  if (!post) throw new HttpProblem(404, 'Post not found');
  if (user && post.owner !== user.id && !user.is_admin)
    throw new HttpProblem(403, 'Not the owner of this post');
  return post;
}

function text(value: unknown, name: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0)
    throw new HttpProblem(422, `${name} must be a non-empty string`);
  return value;
}

function nullableText(value: unknown): string | null | undefined {
  if (value === undefined || value === null || typeof value === 'string') return value;
  throw new HttpProblem(422, 'body must be a string or null');
}

function intParam(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) > max)
    throw new HttpProblem(400, `${name} must be an integer <= ${max}`);
  return Number(raw);
}

/** The relations `include=` names (comma lists, the parameter may repeat); 400 for any other name. */
function includeParam(query: URLSearchParams): Set<string> {
  const names = new Set(query.getAll('include').flatMap((value) => value.split(',').filter(Boolean)));
  for (const name of names) {
    if (name !== 'owner' && name !== 'tags') throw new HttpProblem(400, `include: no relation "${name}"`);
  }
  return names;
}

/** A page of posts with the included owner and tags embedded: one statement per relation. */
async function embed(rows: readonly PostRow[], include: ReadonlySet<string>): Promise<object[]> {
  const [owners, tags] = await Promise.all([
    include.has('owner') ? store.publicUsers([...new Set(rows.map((row) => row.owner))]) : undefined,
    include.has('tags') ? store.tagsOfPosts(rows.map((row) => row.id)) : undefined,
  ]);
  const ownerById = new Map<number, PublicUser>(owners?.map((user) => [user.id, user]));
  const tagsByPost = new Map<number, { id: number; name: string }[]>();
  for (const { post_id, id, name } of tags ?? []) {
    const list = tagsByPost.get(post_id);
    if (list === undefined) tagsByPost.set(post_id, [{ id, name }]);
    else list.push({ id, name });
  }
  return rows.map((row) => ({
    ...row,
    ...(owners === undefined ? {} : { owner: ownerById.get(row.owner) ?? null }),
    ...(tags === undefined ? {} : { tags: tagsByPost.get(row.id) ?? [] }),
  }));
}

async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { username, password } = await readJson(req);
  if (typeof username !== 'string' || typeof password !== 'string') {
    throw new HttpProblem(422, 'username and password are required strings');
  }
  const user = await store.userByUsername(username);
  const ok = await verify(password, user?.hashed_password ?? dummyHash);
  if (!user || !ok) throw new HttpProblem(401, 'Incorrect username or password');
  const access_token = jwt.sign({ sub: String(user.id) }, key, {
    algorithm: 'HS256',
    expiresIn: TOKEN_TTL_SECONDS,
    issuer: JWT_ISSUER,
    audience: JWT_AUDIENCE,
  });
  sendJson(res, 200, { access_token, token_type: 'bearer', expires_in: TOKEN_TTL_SECONDS });
}

async function collection(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
  if (req.method === 'GET') {
    if (secureReads) await requireUser(req);
    const include = includeParam(query);
    const { rows, total } = await store.listPosts(
      intParam(query, 'limit', 100, 1000),
      intParam(query, 'offset', 0, Number.MAX_SAFE_INTEGER),
      query.get('count') !== 'false',
    );
    const body = include.size === 0 ? rows : await embed(rows, include);
    sendJson(res, 200, body, total === undefined ? {} : { 'x-total-count': String(total) });
  } else if (req.method === 'POST') {
    const user = await requireUser(req);
    const input = await readJson(req);
    const post = await store.createPost(
      text(input.title, 'title', true) as string,
      nullableText(input.body) ?? null,
      user.id,
    );
    sendJson(res, 201, post, { location: `/posts/${post.id}` });
  } else {
    sendJson(res, 405, { title: 'Method Not Allowed', status: 405 }, { allow: 'GET, POST' });
  }
}

async function item(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
  const id = parseId(rawId);
  if (req.method === 'GET') {
    const user = secureReads ? await requireUser(req) : undefined;
    sendJson(res, 200, await loadOwned(id, user));
  } else if (req.method === 'PUT' || req.method === 'PATCH') {
    const post = await loadOwned(id, await requireUser(req));
    const input = await readJson(req);
    const title = text(input.title, 'title', false) ?? post.title;
    const body = nullableText(input.body);
    const updated: PostRow = { ...post, title, body: body === undefined ? post.body : body };
    await store.updatePost(post.id, updated.title, updated.body);
    sendJson(res, 200, updated);
  } else if (req.method === 'DELETE') {
    const post = await loadOwned(id, await requireUser(req));
    await store.deletePost(post.id);
    res.writeHead(204).end();
  } else {
    sendJson(res, 405, { title: 'Method Not Allowed', status: 405 }, { allow: 'GET, PUT, PATCH, DELETE' });
  }
}

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const query = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
  if (path === '/posts') return collection(req, res, query);
  if (path.startsWith('/posts/') && path.indexOf('/', 7) === -1) return item(req, res, path.slice(7));
  if (path === '/login' && req.method === 'POST') return login(req, res);
  throw new HttpProblem(404, `No route for ${req.method} ${path}`);
}

const server = createServer((req, res) => {
  route(req, res).catch((error: unknown) => sendError(res, error));
});
server.listen(env.port, '127.0.0.1', () => telemetry.ready());
