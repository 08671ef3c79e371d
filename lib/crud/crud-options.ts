/** Options of `CrudRouter`, checked once when the router is created. */
import { ConfigurationError } from '../errors.js';
import type { AuthDependency, CrudMethod, ModelClass, OrmAdapter, Policy } from '../types.js';

/** Options of `CrudRouter`; snake_case names as in the specification, camelCase aliases beside them. */
export interface CrudRouterOptions {
  /** The model whose five (plus PATCH) routes are generated. */
  readonly model: ModelClass;
  /** Every route requires `auth_dependency` to authenticate the caller. */
  readonly secure?: boolean;
  /** The authentication dependency (e.g. `auth.get_auth_dependency()`). */
  readonly auth_dependency?: AuthDependency;
  /** Alias of `auth_dependency`. */
  readonly authDependency?: AuthDependency;
  /** Per-method policies; a `PUT` policy also guards `PATCH` unless `PATCH` has its own. */
  readonly policy?: Readonly<Partial<Record<CrudMethod, Policy>>>;
  /** Refuse fields a client may not write with 422 instead of dropping them. */
  readonly strict?: boolean;
  /** Path prefix before `/{resource}`, e.g. `/api` (for composing into an existing app). */
  readonly prefix?: string;
  /** The ownership field, when the detection rule cannot find it. */
  readonly owner_field?: string;
  /** Alias of `owner_field`. */
  readonly ownerField?: string;
  /** The adapter, when the router is used on a plain Koa app without `useAdapter`. */
  readonly adapter?: OrmAdapter;
}

/** The options after defaults and checks. */
export interface ResolvedCrudOptions {
  /** The model whose routes are generated. */
  readonly model: ModelClass;
  /** Every route requires `authDependency`. */
  readonly secure: boolean;
  /** The authentication dependency, from `auth_dependency` or its alias. */
  readonly authDependency: AuthDependency | undefined;
  /** Policies by method, with `PATCH` filled in from `PUT` when it has none of its own. */
  readonly policies: Readonly<Partial<Record<CrudMethod, Policy>>>;
  /** Unwritable fields are refused with 422 instead of dropped. */
  readonly strict: boolean;
  /** The normalised path prefix: `''` or `/a/b`. */
  readonly prefix: string;
  /** The explicit ownership field, from `owner_field` or its alias. */
  readonly ownerField: string | undefined;
  /** The router's own adapter, if it was given one. */
  readonly adapter: OrmAdapter | undefined;
}

const METHODS: readonly CrudMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Normalises a path prefix to `''` or `/a/b` (no trailing slash). */
export function normalisePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '' || prefix === '/') return '';
  if (!/^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/.test(prefix)) {
    throw new ConfigurationError(`Invalid prefix "${prefix}": use path segments such as "/api/v1".`);
  }
  return `/${prefix.replace(/^\/|\/$/g, '')}`;
}

/** Checks the options and fills in defaults; throws `ConfigurationError` on a mistake. */
export function resolveCrudOptions(options: CrudRouterOptions): ResolvedCrudOptions {
  if (typeof options?.model !== 'function') {
    throw new ConfigurationError('CrudRouter needs `model`: the model class whose routes to generate.');
  }
  const authDependency = options.auth_dependency ?? options.authDependency;
  if (authDependency !== undefined && typeof authDependency !== 'function') {
    throw new ConfigurationError(
      'CrudRouter: `auth_dependency` must be Koa middleware (e.g. auth.get_auth_dependency()).',
    );
  }
  const secure = options.secure ?? false;
  if (secure && authDependency === undefined) {
    throw new ConfigurationError(
      `CrudRouter for ${options.model.name}: secure: true needs an auth_dependency (e.g. auth.get_auth_dependency()).`,
    );
  }
  const policies: Partial<Record<CrudMethod, Policy>> = {};
  for (const [method, policy] of Object.entries(options.policy ?? {})) {
    if (!(METHODS as readonly string[]).includes(method)) {
      throw new ConfigurationError(
        `CrudRouter policy: unknown method "${method}"; use ${METHODS.join(', ')}.`,
      );
    }
    if (typeof policy?.allows !== 'function') {
      throw new ConfigurationError(
        `CrudRouter policy for ${method} is not a policy (e.g. auth.admin_only()).`,
      );
    }
    policies[method as CrudMethod] = policy;
  }
  if (policies.PUT !== undefined && policies.PATCH === undefined) policies.PATCH = policies.PUT;
  return {
    model: options.model,
    secure,
    authDependency,
    policies,
    strict: options.strict ?? false,
    prefix: normalisePrefix(options.prefix),
    ownerField: options.owner_field ?? options.ownerField,
    adapter: options.adapter,
  };
}
