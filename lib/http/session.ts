/**
 * Where middleware finds the adapter and the request's unit of work: the `Application` (or
 * `useAdapter` on a plain Koa app) puts the adapter on the Koa context prototype, and each
 * request opens at most one session, lazily.
 */
import type Koa from 'koa';
import { ConfigurationError } from '../errors.js';
import type { OrmAdapter } from '../types.js';

const ADAPTER: unique symbol = Symbol.for('koa-model-api.adapter');
const SESSION: unique symbol = Symbol.for('koa-model-api.session');

type Carrier = { [ADAPTER]?: OrmAdapter; [SESSION]?: unknown };
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

/** The request's unit of work, opened on first use (one per request): the adapter's session type (MikroORM: an `EntityManager`). */
export function sessionOf<Session = unknown>(ctx: AnyContext, adapter: OrmAdapter<Session>): Session {
  const carrier = ctx as unknown as Carrier;
  if (!Object.hasOwn(carrier, SESSION)) carrier[SESSION] = adapter.openSession();
  // One adapter per app: the session stored on the request is the one this adapter opened.
  return carrier[SESSION] as Session;
}
