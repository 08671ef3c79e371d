/**
 * A bounded, concurrent mixed load on the example blog: lists, reads, creates, updates and deletes
 * of categories (public) and posts (authenticated, so every request also loads its user), a fixed
 * number of requests with a fixed number in flight, on loopback only. Every answer is kept with
 * the statuses its request may legitimately get (a read or write of a row another request just
 * deleted is a 404), so a test can tell expected answers from failures.
 */
import { describeResponse, type HttpRequest, type HttpResponse, send } from '../security/support/client.js';

/** One answer of the load and the statuses its request may get when all is well. */
export interface LoadAnswer {
  readonly response: HttpResponse;
  readonly expected: readonly number[];
}

/** How to run a load. */
export interface LoadOptions {
  readonly base: string;
  readonly token: string;
  readonly requests: number;
  readonly inFlight: number;
  /** Distinguishes the names this load creates from other loads' on the same database. */
  readonly tag: string;
  /** Called after each answer with the number of answers so far (to act mid-load). */
  readonly onAnswer?: (answered: number) => void | Promise<void>;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** Runs the load and resolves with every answer, in the order they came. */
export async function runMixedLoad(options: LoadOptions): Promise<LoadAnswer[]> {
  const bearer = { authorization: `Bearer ${options.token}` };
  const categories: number[] = [];
  const posts: number[] = [];
  const answers: LoadAnswer[] = [];
  let next = 0;

  const pick = (ids: number[], take: boolean): number => {
    if (ids.length === 0) return 999_999_999;
    const index = next % ids.length;
    return take ? (ids.splice(index, 1)[0] as number) : (ids[index] as number);
  };

  const requestFor = (n: number): { request: HttpRequest; expected: number[]; keep?: number[] } => {
    const name = `${options.tag}-${n}`;
    switch (n % 10) {
      case 0:
        return { request: { method: 'GET', path: '/categories?limit=10&sort=-id' }, expected: [200] };
      case 1:
        return {
          request: { method: 'GET', path: `/categories/${pick(categories, false)}` },
          expected: [200, 404],
        };
      case 2:
        return {
          request: { method: 'POST', path: '/categories', json: { name } },
          expected: [201],
          keep: categories,
        };
      case 3:
        return {
          request: { method: 'PUT', path: `/categories/${pick(categories, false)}`, json: { name } },
          expected: [200, 404],
        };
      case 4:
        return { request: { method: 'GET', path: '/posts?limit=5', headers: bearer }, expected: [200] };
      case 5:
        return {
          request: { method: 'POST', path: '/posts', headers: bearer, json: { title: name, body: 'load' } },
          expected: [201],
          keep: posts,
        };
      case 6:
        return {
          request: { method: 'GET', path: `/posts/${pick(posts, false)}`, headers: bearer },
          expected: [200, 404],
        };
      case 7:
        return {
          request: {
            method: 'PUT',
            path: `/posts/${pick(posts, false)}`,
            headers: bearer,
            json: { title: name },
          },
          expected: [200, 404],
        };
      case 8:
        return {
          request: { method: 'DELETE', path: `/categories/${pick(categories, true)}` },
          expected: [204, 404],
        };
      default:
        return {
          request: { method: 'DELETE', path: `/posts/${pick(posts, true)}`, headers: bearer },
          expected: [204, 404],
        };
    }
  };

  const worker = async (): Promise<void> => {
    while (next < options.requests) {
      const { request, expected, keep } = requestFor(next++);
      const response = await send(options.base, request, REQUEST_TIMEOUT_MS).catch(
        (error: unknown): HttpResponse => ({
          request,
          status: 0,
          headers: {},
          text: `no answer: ${(error as Error).message}`,
          json: undefined,
          ms: REQUEST_TIMEOUT_MS,
        }),
      );
      const id = (response.json as { id?: unknown } | undefined)?.id;
      if (keep !== undefined && response.status === 201 && typeof id === 'number') keep.push(id);
      answers.push({ response, expected });
      await options.onAnswer?.(answers.length);
    }
  };
  await Promise.all(Array.from({ length: options.inFlight }, worker));
  return answers;
}

/** Counts of answers by status, e.g. `{ 200: 310, 201: 128, 404: 3 }`. */
export function statusCounts(answers: readonly LoadAnswer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { response } of answers) counts[response.status] = (counts[response.status] ?? 0) + 1;
  return counts;
}

/** The answers whose status is not one their request may get (503s allowed when `unavailable` is true). */
export function unexpected(answers: readonly LoadAnswer[], unavailable = false): string[] {
  return answers
    .filter(
      ({ response, expected }) =>
        !(expected.includes(response.status) || (unavailable && response.status === 503)),
    )
    .map(({ response }) => describeResponse(response));
}
