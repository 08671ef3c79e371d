/**
 * Where middleware finds the adapter and the request's unit of work: the `Application` (or
 * `useAdapter` on a plain Koa app) puts the adapter on the Koa context prototype, and each
 * request opens at most one session, lazily.
 */
import type Koa from 'koa';
import { ConfigurationError } from '../errors.js';
import type { OrmAdapter, SessionOptions } from '../types.js';

const ADAPTER: unique symbol = Symbol.for('koa-model-api.adapter');
const SESSION: unique symbol = Symbol.for('koa-model-api.session');

/** The sessions of one request: the first adapter's inline, any other's (a router with its own adapter) in a map. */
type Sessions = { adapter: OrmAdapter; session: unknown; others?: Map<OrmAdapter, unknown> };
type Carrier = { [ADAPTER]?: OrmAdapter; [SESSION]?: Sessions };
/** Any Koa context, whatever its state and custom types. @inline */
type AnyContext = Koa.BaseContext | Koa.Context | Koa.ParameterizedContext<unknown, unknown>;

/** Makes `adapter` the one every framework middleware of this Koa app uses. */
export function useAdapter(koa: Koa<never, never> | Koa, adapter: OrmAdapter): void {
  (koa.context as unknown as Carrier)[ADAPTER] = adapter;
}

/** Attaches `adapter` unless the Koa app already has one (an explicit `useAdapter` wins). */
export function useAdapterIfMissing(koa: Koa<never, never> | Koa, adapter: OrmAdapter): void {
  if (!Object.hasOwn(koa.context, ADAPTER)) useAdapter(koa, adapter);
}

/** The adapter of this request's app, if one was attached. */
export function adapterOf(ctx: AnyContext): OrmAdapter | undefined {
  return (ctx as unknown as Carrier)[ADAPTER];
}

/** The adapter of this request's app; a clear error when none was attached. */
export function requireAdapter(ctx: AnyContext, fallback?: OrmAdapter): OrmAdapter {
  const adapter = fallback ?? adapterOf(ctx);
  if (adapter === undefined) {
    throw new ConfigurationError(
      'No ORM adapter: register the router on an Application, pass `adapter` in its options, or call useAdapter(koaApp, adapter).',
    );
  }
  return adapter;
}

/** Sessions whose reads see every committed write (the primary): requests that may write, the auth plugin's checks. */
export const PRIMARY_READS: SessionOptions = Object.freeze({ primary: true });

/**
 * How a request's session reads: a request that may write (any method but GET and HEAD) reads
 * from the primary, so that what it checks before writing (the record a policy decides on, the
 * values an update compares with, a refresh token) is never a lagging replica's copy.
 */
function optionsOf(ctx: AnyContext): SessionOptions | undefined {
  const method = (ctx as { method?: string }).method;
  return method === 'GET' || method === 'HEAD' ? undefined : PRIMARY_READS;
}

/**
 * A unit of work whose reads see every committed write, for a check that must not decide on a
 * replica's lagging copy (the user a token authenticates: a revoked token must be refused at
 * once, a user just registered found): the request's own when it reads the primary already, a
 * fresh one for a `GET` or `HEAD`, whose reads may go to a replica.
 */
export function primarySessionOf<Session = unknown>(ctx: AnyContext, adapter: OrmAdapter<Session>): Session {
  return optionsOf(ctx) === PRIMARY_READS ? sessionOf(ctx, adapter) : adapter.openSession(PRIMARY_READS);
}

/** The request's unit of work, opened on first use (one per request): the adapter's session type (MikroORM: an `EntityManager`). */
export function sessionOf<Session = unknown>(ctx: AnyContext, adapter: OrmAdapter<Session>): Session {
  const carrier = ctx as unknown as Carrier;
  const sessions = Object.hasOwn(carrier, SESSION) ? carrier[SESSION] : undefined;
  if (sessions === undefined) {
    const session = adapter.openSession(optionsOf(ctx));
    carrier[SESSION] = { adapter, session };
    return session;
  }
  // Each session is the one its adapter opened, so the type is the adapter's own.
  if (sessions.adapter === adapter) return sessions.session as Session;
  sessions.others ??= new Map();
  let other = sessions.others.get(adapter);
  if (other === undefined) {
    other = adapter.openSession(optionsOf(ctx));
    sessions.others.set(adapter, other);
  }
  return other as Session;
}
