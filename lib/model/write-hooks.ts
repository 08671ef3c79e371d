/**
 * Write hooks let a plugin take part in every write to a model, whichever route makes it: the
 * auth plugin uses them so that a `password` given to a `CrudRouter` on the user model is hashed.
 */
import type { JsonSchema } from '../schema/json-schema.js';
import type { AppContext, ModelClass, RawRecord } from '../types.js';

/** Whether a write creates a record or changes one. */
export type WriteMode = 'create' | 'update';

/** Extra write-only input fields and a transformation applied after validation. */
export interface WriteHooks {
  /** Input-only fields (never stored as such), e.g. `password`. */
  readonly extraFields: Readonly<Record<string, JsonSchema>>;
  /** Extra fields a create must include. */
  readonly requiredOnCreate: readonly string[];
  /** Turns validated input into the columns to store (e.g. `password` → `hashed_password`). */
  prepare(data: RawRecord, mode: WriteMode, ctx: AppContext | undefined): Promise<RawRecord>;
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
