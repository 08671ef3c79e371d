/**
 * Write hooks let a plugin take part in every write to a model, whichever route makes it: the
 * auth plugin uses them to keep credentials out of a `CrudRouter` on the user model (no password
 * input, and an email change only with the current password).
 */
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
}

const hooksByModel = new WeakMap<ModelClass, WriteHooks>();

/** Attaches write hooks to a model (the last call wins). */
export function setWriteHooks(model: ModelClass, hooks: WriteHooks): void {
  hooksByModel.set(model, hooks);
}

/** The write hooks of a model, if a plugin attached some. */
export function writeHooksOf(model: ModelClass): WriteHooks | undefined {
  return hooksByModel.get(model);
}
