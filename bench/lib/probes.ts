/**
 * The equality check run before any measurement: the same requests against every contender must give
 * the same status and the same JSON (tokens and problem wording aside), or the comparison means nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Dataset } from './dataset.js';

/** The page of the include scenario, probed first: 20 posts, each with its owner and its tags (many-to-many). */
export const INCLUDE_PATH = '/posts?limit=20&include=owner,tags';

/** The tokens a contender issued for the probe users. */
export interface Tokens {
  /** User 1, owner of the posts the scenarios touch. */
  readonly owner: string;
  /** User 2, who owns none of them. */
  readonly other: string;
}

/** One probe request and what is compared of its answer. */
interface Probe {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string | ((created: number) => string);
  readonly body?: unknown;
  readonly as?: keyof Tokens;
  /** Remember the `id` of the answer as the post later probes address. */
  readonly captures?: boolean;
  /** Response headers whose values are compared too. */
  readonly headers?: readonly string[];
}

/** The normalised answer to a probe. */
export interface ProbeAnswer {
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | null>>;
}

const JWT_PATTERN = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Probes for the open profile: public reads (with included relations) and login. */
function openProbes(data: Dataset): Probe[] {
  const missing = data.posts + 1_000_000;
  return [
    { name: 'GET one post', method: 'GET', path: '/posts/1' },
    { name: 'GET a post with a null body', method: 'GET', path: '/posts/7' },
    { name: 'GET a missing post', method: 'GET', path: `/posts/${missing}` },
    { name: 'GET list 20', method: 'GET', path: '/posts?limit=20', headers: ['x-total-count'] },
    {
      name: 'GET list 20 without the total',
      method: 'GET',
      path: '/posts?limit=20&count=false',
      headers: ['x-total-count'],
    },
    {
      name: 'GET list 20, offset 40',
      method: 'GET',
      path: '/posts?limit=20&offset=40',
      headers: ['x-total-count'],
    },
    {
      name: 'GET list 20 with owner and tags',
      method: 'GET',
      path: INCLUDE_PATH,
      headers: ['x-total-count'],
    },
    {
      // Posts 41 to 60: none, one, two and three tags each.
      name: 'GET list 20, offset 40, with tags only',
      method: 'GET',
      path: '/posts?limit=20&offset=40&include=tags&count=false',
      headers: ['x-total-count'],
    },
    { name: 'GET list with an unknown include', method: 'GET', path: '/posts?limit=20&include=nothing' },
    {
      name: 'POST /login',
      method: 'POST',
      path: '/login',
      body: { username: data.username(1), password: data.password(1) },
    },
    {
      name: 'POST /login, wrong password',
      method: 'POST',
      path: '/login',
      body: { username: data.username(1), password: 'wrong-password' },
      headers: ['www-authenticate'],
    },
    {
      name: 'POST /login, unknown user',
      method: 'POST',
      path: '/login',
      body: { username: 'nobody', password: 'wrong-password' },
    },
  ];
}

/** Probes for the secure profile: authenticated reads with the ownership policy, and a write cycle. */
function secureProbes(data: Dataset): Probe[] {
  const owned = data.postsOwnedBy(1)[0] as number;
  const missing = data.posts + 1_000_000;
  const created = (id: number): string => `/posts/${id}`;
  return [
    { name: 'GET own post', method: 'GET', path: `/posts/${owned}`, as: 'owner' },
    { name: 'GET without token', method: 'GET', path: `/posts/${owned}`, headers: ['www-authenticate'] },
    { name: "GET someone else's post", method: 'GET', path: `/posts/${owned}`, as: 'other' },
    { name: 'GET a missing post', method: 'GET', path: `/posts/${missing}`, as: 'owner' },
    { name: 'POST without token', method: 'POST', path: '/posts', body: { title: 'x' } },
    { name: 'POST without title', method: 'POST', path: '/posts', body: { body: 'no title' }, as: 'owner' },
    {
      name: 'POST a post',
      method: 'POST',
      path: '/posts',
      body: { title: 'Probe post', body: 'probe body' },
      as: 'owner',
      captures: true,
    },
    {
      name: "PUT someone else's post",
      method: 'PUT',
      path: created,
      body: { title: 'Hijacked', body: null },
      as: 'other',
    },
    {
      name: 'PUT own post',
      method: 'PUT',
      path: created,
      body: { title: 'Probe post, edited', body: null },
      as: 'owner',
    },
    { name: 'GET the edited post', method: 'GET', path: created, as: 'owner' },
    { name: "DELETE someone else's post", method: 'DELETE', path: created, as: 'other' },
    { name: 'DELETE own post', method: 'DELETE', path: created, as: 'owner' },
    { name: 'GET the deleted post', method: 'GET', path: created, as: 'owner' },
    { name: 'DELETE it again', method: 'DELETE', path: created, as: 'owner' },
  ];
}

/** Masks what legitimately differs between contenders: token values, and problem wording (only `status` is kept). */
function normalise(status: number, type: string, text: string): unknown {
  if (text === '') return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
  if (type === 'application/problem+json' && typeof body === 'object' && body !== null) {
    return { status: (body as { status?: unknown }).status };
  }
  if (status === 200 && typeof body === 'object' && body !== null && 'access_token' in body) {
    // The framework's login also answers a refresh token, which the other contenders do not have:
    // the comparison covers the access token every contender issues.
    const {
      refresh_token: _refresh,
      refresh_expires_in: _expires,
      ...access
    } = body as Record<string, unknown>;
    const token = access.access_token;
    return {
      ...access,
      access_token: typeof token === 'string' && JWT_PATTERN.test(token) ? '<jwt>' : token,
    };
  }
  return body;
}

/** Sends every probe of a profile in order and returns the normalised answers by probe name. */
export async function probe(
  baseUrl: string,
  profile: 'open' | 'secure',
  data: Dataset,
  tokens: Tokens,
): Promise<Map<string, ProbeAnswer>> {
  const answers = new Map<string, ProbeAnswer>();
  let created = 0;
  for (const p of profile === 'open' ? openProbes(data) : secureProbes(data)) {
    const headers: Record<string, string> = {};
    if (p.as) headers.authorization = `Bearer ${tokens[p.as]}`;
    if (p.body !== undefined) headers['content-type'] = 'application/json';
    const path = typeof p.path === 'string' ? p.path : p.path(created);
    const response = await fetch(baseUrl + path, {
      method: p.method,
      headers,
      body: p.body === undefined ? undefined : JSON.stringify(p.body),
    });
    const text = await response.text();
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const body = normalise(response.status, type, text);
    if (p.captures && typeof body === 'object' && body !== null)
      created = Number((body as { id?: unknown }).id);
    const picked: Record<string, string | null> = {};
    for (const name of p.headers ?? []) {
      const value = response.headers.get(name);
      // Only the scheme of a challenge is compared: realms and error parameters are a contender's choice.
      picked[name] = name === 'www-authenticate' ? (value?.split(/[\s,]/)[0] ?? null) : value;
    }
    answers.set(p.name, { status: response.status, type, body, headers: picked });
  }
  return answers;
}

/** Logs in as users 1 and 2 and returns their tokens; throws when a login fails. */
export async function login(baseUrl: string, data: Dataset): Promise<Tokens> {
  const one = async (id: number): Promise<string> => {
    const response = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: data.username(id), password: data.password(id) }),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown };
    if (response.status !== 200 || typeof body.access_token !== 'string') {
      throw new Error(`login as ${data.username(id)} answered ${response.status} ${JSON.stringify(body)}`);
    }
    return body.access_token;
  };
  return { owner: await one(1), other: await one(2) };
}

/** Lists every difference between a reference's answers and another contender's. */
export function compareAnswers(
  reference: Map<string, ProbeAnswer>,
  other: Map<string, ProbeAnswer>,
): string[] {
  const differences: string[] = [];
  for (const [name, expected] of reference) {
    const actual = other.get(name);
    if (!actual || !isDeepStrictEqual(expected, actual)) {
      differences.push(
        `${name}:\n    expected ${JSON.stringify(expected)}\n    got      ${JSON.stringify(actual)}`,
      );
    }
  }
  return differences;
}
