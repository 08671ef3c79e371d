/** Options of `CrudRouter`, checked once when the router is created. */
import { ConfigurationError } from '../errors.js';
import { INCLUDE_LIMITS } from '../model/relations.js';
import { resolveWriteHooks, type WriteHooks } from '../model/write-hooks.js';
import { type CamelAliases, SpellingTable } from '../options/spelling.js';
import { LIKE_LIMITS, type LikeLimits } from '../query/list-query.js';
import type { AuthDependency, CrudMethod, ModelClass, OrmAdapter, Policy } from '../types.js';

/** The `like` settings under their snake_case names only; `CrudLikeOptions` adds the camelCase aliases. */
export interface CrudLikeSettings {
  /** Longest pattern in characters, escapes included. Default 100. */
  readonly max_length?: number;
  /** Most unescaped `%` and `_` in one pattern. Default 4. */
  readonly max_wildcards?: number;
  /** Unbounded `text` fields (paths) patterns may apply to, or `true` for all; none by default. */
  readonly text_fields?: true | readonly string[];
}

/**
 * The `like` option of `CrudRouter`: caps of `$like`/`$ilike` patterns and the unbounded `text`
 * fields they may apply to. Every snake_case name has a camelCase alias (`maxLength`, …).
 * @example new CrudRouter({ model: Post, like: { text_fields: ['body'], max_length: 50 } })
 */
export interface CrudLikeOptions extends CrudLikeSettings, CamelAliases<CrudLikeSettings> {}

/** The options of `CrudRouter` under their snake_case names only; `CrudRouterOptions` adds the aliases. */
export interface CrudRouterSettings {
  /** The model whose five (plus PATCH) routes are generated. */
  readonly model: ModelClass;
  /** Every route requires `auth_dependency` to authenticate the caller. */
  readonly secure?: boolean;
  /**
   * The authentication dependency (e.g. `auth.get_auth_dependency()`). The auth plugin's also
   * brings the write hooks of its user model to a router on that model.
   */
  readonly auth_dependency?: AuthDependency;
  /** Per-method policies; a `PUT` policy also guards `PATCH` unless `PATCH` has its own. */
  readonly policy?: Readonly<Partial<Record<CrudMethod, Policy>>>;
  /** Refuse fields a client may not write with 422 instead of dropping them. */
  readonly strict?: boolean;
  /** Path prefix before `/{resource}`, e.g. `/api` (for composing into an existing app). */
  readonly prefix?: string;
  /**
   * The ownership field, when the detection rule cannot find it; `false`: the model has no owner
   * (its many-to-ones to the user model are written by clients like any other field).
   */
  readonly owner_field?: string | false;
  /** The adapter, when the router is used on a plain Koa app without `useAdapter`. */
  readonly adapter?: OrmAdapter;
  /** Caps of `$like`/`$ilike` patterns and the `text` fields they may apply to. */
  readonly like?: CrudLikeOptions;
  /**
   * Relations requests may name in `include=` and filter or sort through: `true` (default) for
   * every relation whose target model is served by a router of the same application, a list of
   * relation names, or `false` for none.
   */
  readonly include?: boolean | readonly string[];
  /** Most records of one to-many relation embedded per record (default 100, at most 1000). */
  readonly include_limit?: number;
  /**
   * Hooks taking part in every write of this router (extra input fields, a transformation after
   * validation); default those the authentication dependency (or a policy's) brings for the model.
   */
  readonly write_hooks?: WriteHooks;
}

/** Options of `CrudRouter`; snake_case names as in the specification, each with a camelCase alias. */
export interface CrudRouterOptions extends CrudRouterSettings, CamelAliases<CrudRouterSettings> {}

const CRUD_OPTIONS = new SpellingTable<CrudRouterSettings>({
  model: true,
  secure: true,
  auth_dependency: true,
  policy: true,
  strict: true,
  prefix: true,
  owner_field: true,
  adapter: true,
  like: true,
  include: true,
  include_limit: true,
  write_hooks: true,
});

const LIKE_OPTIONS = new SpellingTable<CrudLikeSettings>(
  { max_length: true, max_wildcards: true, text_fields: true },
  'like.',
);

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
  /** The explicit ownership field, from `owner_field` or its alias; `false` for none. */
  readonly ownerField: string | false | undefined;
  /** The router's own adapter, if it was given one. */
  readonly adapter: OrmAdapter | undefined;
  /** Pattern caps and text-field opt-ins (field names are checked against the model later). */
  readonly like: LikeLimits;
  /** The relations requests may use: all served ones (`true`), those named, or none (`false`). */
  readonly include: boolean | readonly string[];
  /** Most records of one to-many relation embedded per record. */
  readonly includeLimit: number;
  /** The write hooks every write of the router goes through, resolved when the router is created. */
  readonly writeHooks: WriteHooks | undefined;
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

/** One cap of the `like` option: a positive integer, or the default when not given. */
function likeCap(model: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(`CrudRouter for ${model}: like.${name} must be a positive integer.`);
  }
  return value;
}

/** The `like` option with defaults filled in. */
function resolveLike(model: string, given: CrudLikeOptions | undefined): LikeLimits {
  if (given === undefined) return LIKE_LIMITS;
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError(
      `CrudRouter for ${model}: like must be an object such as { max_length: 100, max_wildcards: 4, text_fields: ['body'] }.`,
    );
  }
  const like = LIKE_OPTIONS.read(given, `CrudRouter for ${model}`);
  const fields = like.text_fields;
  if (
    fields !== undefined &&
    fields !== true &&
    !(Array.isArray(fields) && fields.every((name) => typeof name === 'string'))
  ) {
    throw new ConfigurationError(
      `CrudRouter for ${model}: like.text_fields must be true or a list of field names.`,
    );
  }
  return {
    maxLength: likeCap(model, 'max_length', like.max_length, LIKE_LIMITS.maxLength),
    maxWildcards: likeCap(model, 'max_wildcards', like.max_wildcards, LIKE_LIMITS.maxWildcards),
    textFields: fields === true ? true : new Set(fields ?? []),
  };
}

/** The `include` option, checked for shape (names are checked against the model later). */
function resolveInclude(model: string, include: unknown): boolean | readonly string[] {
  if (include === undefined) return true;
  if (typeof include === 'boolean') return include;
  if (Array.isArray(include) && include.every((name) => typeof name === 'string' && name !== '')) {
    return [...new Set(include as string[])];
  }
  throw new ConfigurationError(
    `CrudRouter for ${model}: include must be true, false or a list of relation names such as ['owner', 'tags'].`,
  );
}

/** The `include_limit` option: a whole number from 1 to the largest allowed. */
function resolveIncludeLimit(model: string, value: unknown): number {
  if (value === undefined) return INCLUDE_LIMITS.defaultLimit;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > INCLUDE_LIMITS.maxLimit) {
    throw new ConfigurationError(
      `CrudRouter for ${model}: include_limit must be a whole number from 1 to ${INCLUDE_LIMITS.maxLimit}.`,
    );
  }
  return value;
}

/** Checks the options and fills in defaults; throws `ConfigurationError` on a mistake. */
export function resolveCrudOptions(given: CrudRouterOptions): ResolvedCrudOptions {
  if (typeof given !== 'object' || given === null || typeof given.model !== 'function') {
    throw new ConfigurationError('CrudRouter needs `model`: the model class whose routes to generate.');
  }
  const owner = `CrudRouter for ${given.model.name}`;
  const options = CRUD_OPTIONS.read(given, owner);
  const authDependency = options.auth_dependency;
  if (authDependency !== undefined && typeof authDependency !== 'function') {
    throw new ConfigurationError(
      'CrudRouter: `auth_dependency` must be Koa middleware (e.g. auth.get_auth_dependency()).',
    );
  }
  const secure = options.secure ?? false;
  if (secure && authDependency === undefined) {
    throw new ConfigurationError(
      `${owner}: secure: true needs an auth_dependency (e.g. auth.get_auth_dependency()).`,
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
    ownerField: options.owner_field,
    adapter: options.adapter,
    like: resolveLike(options.model.name, options.like),
    include: resolveInclude(options.model.name, options.include),
    includeLimit: resolveIncludeLimit(options.model.name, options.include_limit),
    // Resolved here, once: the router's validators and documented schemas are built from them.
    writeHooks: resolveWriteHooks(owner, options.model, options.write_hooks, [
      authDependency,
      ...Object.values(policies).map((policy) => policy?.authenticate),
    ]),
  };
}
