/**
 * What a failed operation was, as the error mapping needs to know it: the entity, the kind of
 * operation and the written values. Its own file so that errors.ts and the files it asks which
 * fields to blame all import it without importing each other.
 */
import type { EntityMetadata } from '@mikro-orm/core';

/** What the failed operation was, for the error's wording and the fields it may name. */
export interface ErrorContext {
  readonly meta: EntityMetadata;
  readonly operation: 'read' | 'write' | 'delete';
  /**
   * A read whose statement carried values of the client's (filter values, a keyset cursor): a
   * value its column cannot hold is then the client's mistake, else a failure of the server's.
   */
  readonly queried?: boolean;
  /** The write's data by property name, to narrow down which field broke a constraint. */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * The written references whose key names no row, when a foreign-key error names no column and
   * the database was asked (dangling-references.ts); undefined when it could not be.
   */
  readonly dangling?: readonly string[];
  /**
   * The name the schema gives a constraint of these columns (MikroORM's `platform.getIndexName`,
   * which shortens long names with a hash); without it, MikroORM's unshortened default.
   */
  readonly indexName?: (table: string, columns: string[], type: ConstraintKind) => string;
}

/** The kinds of named constraint a database reports in a write's error. */
export type ConstraintKind = 'primary' | 'unique' | 'foreign' | 'check';
