/**
 * How the adapter turns what MikroORM and its drivers throw into the core's errors, the same way
 * on the plain path and the fast path: a key the column cannot hold identifies no row, MikroORM's
 * own validation is a 422, database errors go through errors.ts.
 */
import {
  DriverException,
  type EntityManager,
  ForeignKeyConstraintViolationException,
  OptimisticLockError,
  TableNotFoundException,
  ValidationError,
} from '@mikro-orm/core';
import { ApiError } from '../../lib/errors.js';
import { collectionCandidates, namesItsColumns, relationCandidates } from './constraint-fields.js';
import { danglingReferences } from './dangling-references.js';
import { databaseGone } from './database-gone.js';
import type { AnyMikroORM } from './describe.js';
import type { ConstraintKind, ErrorContext } from './error-context.js';
import { isConnectionError, quotesInput, toApiError } from './errors.js';
import type { ModelPlan } from './plan.js';
import { missingValues } from './server-values.js';

// PostgreSQL's input conversions of a parameter that fail: bad syntax, out of range, a bad date or time.
const INPUT_CODES = new Set(['22P02', '22003', '22007', '22008']);

/**
 * Whether PostgreSQL could not convert a parameter of the statement to its column's type (a key or
 * filter value the column cannot hold, such as a malformed UUID): its message quotes the input.
 * The same codes without a quoted input ("integer out of range") come from computing a value of a
 * stored row, a formula's arithmetic: no key or filter value is at fault there.
 */
export function isMalformedKey(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' && INPUT_CODES.has(code) && quotesInput(message);
}

/** Maps failures of one adapter's MikroORM instance to `ApiError`s. */
export class AdapterFailures {
  readonly #orm: AnyMikroORM;

  constructor(orm: AnyMikroORM) {
    this.#orm = orm;
  }

  /**
   * The error of a failed read; `queried`: the statement carried values of the client's (filters,
   * a cursor), which a refused value may then be (a 400), where otherwise it is the server's (a 500).
   */
  async read(error: unknown, plan: ModelPlan, queried = false): Promise<unknown> {
    return this.#map(error, { ...this.#context(plan, 'read'), ...(queried ? { queried } : {}) });
  }

  /** The error of a failed delete. */
  async remove(error: unknown, plan: ModelPlan): Promise<unknown> {
    if (error instanceof OptimisticLockError) return staleRecord();
    return this.#map(error, this.#context(plan, 'delete'));
  }

  /**
   * The error of a failed insert or update of these (property-named) values; with the session,
   * the database is asked which reference is dangling when its error does not say.
   */
  async write(
    error: unknown,
    plan: ModelPlan,
    values: Record<string, unknown>,
    session?: EntityManager,
  ): Promise<unknown> {
    // A versioned row changed since this request loaded it: the client's view is stale (MikroORM's
    // OptimisticLockError extends ValidationError, which is no fault of the values).
    if (error instanceof OptimisticLockError) return staleRecord();
    // MikroORM checks required properties and value types itself, before any SQL runs.
    if (error instanceof ValidationError) {
      const required = /^Value for \w+\.(\w+) is required/.exec(error.message);
      const prop = required?.[1];
      if (prop !== undefined) {
        const name = plan.meta.properties[prop as never] === undefined ? prop : jsonName(plan, prop);
        return missingValues(plan.meta, [{ prop, json: name }]);
      }
      // An enum array with an item outside the enum, a value of the wrong type: MikroORM names the property.
      const named =
        /^Invalid enum array items provided in \w+\.(\w+):|^Trying to set \w+\.(\w+) of type/.exec(
          error.message,
        );
      const invalid = named?.[1] ?? named?.[2];
      if (invalid !== undefined && plan.meta.properties[invalid as never] !== undefined) {
        const message =
          named?.[1] === undefined
            ? 'The value cannot be stored in its column.'
            : 'An item is not one of the allowed values.';
        return ApiError.validation(
          [{ path: jsonName(plan, invalid), message }],
          'A value cannot be stored in its column.',
        );
      }
      return ApiError.validation([], 'A value cannot be stored in its column.');
    }
    return this.#map(error, this.#context(plan, 'write', values), session);
  }

  /** The `ApiError` of a database error, after asking the database what the error alone does not say. */
  async #map(error: unknown, context: ErrorContext, session?: EntityManager): Promise<unknown> {
    const driver = this.driverError(error);
    // A missing table on a MariaDB/MySQL connection that outlived its database: unavailable, not a set-up mistake.
    if (driver instanceof TableNotFoundException && (await databaseGone(this.#orm)))
      return ApiError.unavailable(driver);
    if (
      driver instanceof ForeignKeyConstraintViolationException &&
      session !== undefined &&
      context.values !== undefined &&
      !namesItsColumns(driver)
    ) {
      const candidates = [...relationCandidates(context.meta), ...collectionCandidates(context.meta)];
      const dangling = await danglingReferences(session, context.meta, context.values, candidates);
      if (dangling !== undefined) return toApiError(driver, { ...context, dangling });
    }
    return toApiError(driver, context);
  }

  #context(
    plan: ModelPlan,
    operation: ErrorContext['operation'],
    values?: Record<string, unknown>,
  ): ErrorContext {
    const platform = this.#orm.config.getPlatform();
    return {
      meta: plan.meta,
      operation,
      ...(values === undefined ? {} : { values }),
      indexName: (table: string, columns: string[], kind: ConstraintKind) =>
        platform.getIndexName(table, columns, kind),
    };
  }

  /**
   * Query builder executions hand back the driver's own errors (SqliteError, pg's DatabaseError…);
   * MikroORM's converter turns them into its typed exceptions, as its EntityManager paths do.
   */
  driverError(error: unknown): unknown {
    if (
      error instanceof ApiError ||
      error instanceof DriverException ||
      error instanceof ValidationError ||
      !(error instanceof Error)
    )
      return error;
    if (isConnectionError(error)) return error;
    const { code, errno, sqlState } = error as { code?: unknown; errno?: unknown; sqlState?: unknown };
    if (code === undefined && errno === undefined && sqlState === undefined) return error;
    return this.#orm.em.getDriver().convertException(error);
  }
}

/** 409 for a versioned row another request changed since this one loaded it. */
function staleRecord(): ApiError {
  return new ApiError(
    'stale_record',
    'The record was changed by another request meanwhile; read it again and retry.',
  );
}

function jsonName(plan: ModelPlan, prop: string): string {
  for (const field of plan.fields) if (field.prop.name === prop) return field.field.name;
  return prop;
}
