/**
 * Write hooks let a plugin take part in every write a `CrudRouter` makes to a model: the auth
 * plugin uses them to keep credentials out of a `CrudRouter` on the user model (no password
 * input, and an email change only with the current password). A router receives them as an
 * input when it is created — its `write_hooks` option, or the authentication dependency it is
 * given — never from a registry a plugin writes to later.
 */
import { ConfigurationError } from '../errors.js';
import { hasMethods } from '../options/methods.js';
import type { JsonSchema } from '../schema/json-schema.js';
import type { AppContext, ModelClass, RawRecord } from '../types.js';

/** Whether a write creates a record or changes one. */
export type WriteMode = 'create' | 'update';

/** Extra write-only input fields and a transformation applied after validation. */
export interface WriteHooks {
  /** Input-only fields (never stored as such), e.g. `current_password`. */
  readonly extraFields: Readonly<Record<string, JsonSchema>>;
  /** Extra fields a create must include. */
  readonly requiredOnCreate: readonly string[];
  /** Rules the hooks enforce on model fields (e.g. a username's `minLength`), merged into the documented write schemas. */
  readonly fieldRules?: Readonly<Record<string, JsonSchema>>;
  /**
   * Turns validated input into the columns to store, or refuses it (throws an `ApiError`).
   * `current` is the stored row an update changes, when the caller has it at hand.
   */
  prepare(
    data: RawRecord,
    mode: WriteMode,
    ctx: AppContext | undefined,
    current?: Readonly<RawRecord>,
  ): Promise<RawRecord>;
  /** Refuses a `DELETE` of the stored row (throws an `ApiError`), after the route's policy allowed it. */
  prepareDelete?(ctx: AppContext, current: Readonly<RawRecord>): void | Promise<void>;
  /** What `prepareDelete` refuses, for the OpenAPI document (a 403 and this sentence on `DELETE`). */
  readonly deleteRule?: string;
}

/**
 * What may bring the write hooks of a model: an authentication dependency carries those of its
 * user model (the auth plugin's does), so a router on the user model given that dependency
 * applies them without being told twice.
 */
export interface WriteHooksCarrier {
  /** The model the hooks are for. */
  readonly userModel?: ModelClass;
  /** The hooks every router on `userModel` applies. */
  readonly writeHooks?: WriteHooks;
}

/**
 * A static marker on a model class whose routes must have write hooks (the value says where they
 * come from): `AuthMixin` sets it, so a router on a user model without the auth plugin's hooks is
 * refused when it is created instead of accepting passwords and email changes unchecked.
 */
export const WRITE_HOOKS_REQUIRED: unique symbol = Symbol.for('koa-model-api.writeHooksRequired');

/** Where a model's required write hooks come from, when it has the marker (inherited too). */
function requiredHooksSource(model: ModelClass): string | undefined {
  const source = (model as unknown as Record<symbol, unknown>)[WRITE_HOOKS_REQUIRED];
  return typeof source === 'string' ? source : undefined;
}

/** Whether a value has the shape of `WriteHooks`. */
function isWriteHooks(value: unknown): value is WriteHooks {
  if (!hasMethods<WriteHooks>(value, ['prepare'])) return false;
  const { extraFields, requiredOnCreate, prepareDelete } = value;
  return (
    typeof extraFields === 'object' &&
    extraFields !== null &&
    Array.isArray(requiredOnCreate) &&
    (prepareDelete === undefined || typeof prepareDelete === 'function')
  );
}

/** The hooks a carrier (an authentication dependency, or anything else) brings for `model`, if any. */
function carriedHooks(carrier: unknown, model: ModelClass): WriteHooks | undefined {
  if (carrier === null || (typeof carrier !== 'object' && typeof carrier !== 'function')) return undefined;
  const { userModel, writeHooks } = carrier as WriteHooksCarrier;
  return userModel === model && isWriteHooks(writeHooks) ? writeHooks : undefined;
}

/**
 * The write hooks a router on `model` applies: those given, else those the first of `carriers`
 * that carries hooks for `model` brings. Refuses malformed hooks, and a model that requires hooks
 * and gets none.
 */
export function resolveWriteHooks(
  owner: string,
  model: ModelClass,
  given: unknown,
  carriers: readonly unknown[],
): WriteHooks | undefined {
  if (given !== undefined && !isWriteHooks(given)) {
    throw new ConfigurationError(
      `${owner}: \`write_hooks\` must be { extraFields, requiredOnCreate, prepare(data, mode, ctx, current) }.`,
    );
  }
  let hooks = given;
  for (const carrier of carriers) hooks ??= carriedHooks(carrier, model);
  const source = requiredHooksSource(model);
  if (hooks === undefined && source !== undefined) {
    throw new ConfigurationError(
      `${owner}: ${model.name} needs the write hooks of ${source}, which keep passwords and email changes ` +
        'out of its generated routes: pass `auth_dependency: auth.get_auth_dependency()` (or `write_hooks`).',
    );
  }
  return hooks;
}
