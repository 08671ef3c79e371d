/**
 * `FrameworkModel`, the base class of every model, and the static markers through which the core
 * and its plugins tell adapters about columns and write protection without importing an ORM.
 */
import type { ModelClass } from '../types.js';

/** A column a mixin (such as `AuthMixin`) adds; adapters add it to the model's ORM metadata. */
export interface MixinFieldSpec {
  /** The column's field type. */
  readonly type: 'string' | 'boolean' | 'integer' | 'datetime';
  /** NULL allowed. */
  readonly nullable: boolean;
  /** Never sent to clients nor filterable (e.g. a password hash). */
  readonly hidden: boolean;
  /** Value used when a create does not give one. */
  readonly default?: string | number | boolean;
  /** Longest string, in characters. */
  readonly length?: number;
  /** Leave the column out when the model itself declares any of these fields (e.g. another admin flag). */
  readonly omitWhenDeclared?: readonly string[];
}

/** Static key under which mixins list the columns they add. */
export const MIXIN_FIELDS: unique symbol = Symbol.for('koa-model-api.mixinFields');
/** Static key under which mixins list fields no client may ever write. */
export const PROTECTED_FIELDS: unique symbol = Symbol.for('koa-model-api.protectedFields');

/** The base class of every model; it carries no columns. Set `static __tablename__` to name the table. */
// biome-ignore lint/complexity/noStaticOnlyClass: the base class models extend; it is meant to carry no columns
export abstract class FrameworkModel {
  /** An explicit table name; always wins over the derived one. */
  static __tablename__?: string;
}

type Marked = {
  [MIXIN_FIELDS]?: Readonly<Record<string, MixinFieldSpec>>;
  [PROTECTED_FIELDS]?: readonly string[];
  __tablename__?: unknown;
};

/** The columns mixins add to this model (own declarations of the model take precedence in adapters). */
export function mixinFieldsOf(model: ModelClass): Readonly<Record<string, MixinFieldSpec>> {
  return (model as unknown as Marked)[MIXIN_FIELDS] ?? {};
}

/** Field names no client may write on this model, from every mixin in its chain. */
export function protectedFieldsOf(model: ModelClass): ReadonlySet<string> {
  return new Set((model as unknown as Marked)[PROTECTED_FIELDS] ?? []);
}

/** The model's explicit `__tablename__`, if it has one. */
export function explicitTableName(model: ModelClass): string | undefined {
  const name = (model as unknown as Marked).__tablename__;
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}
