/**
 * The per-model plan the adapter builds once: the frozen description plus, for each field, the
 * MikroORM property, how to select it, and its value conversions in both directions.
 */
import { BigIntType, type EntityMetadata, type EntityProperty, type Platform, raw } from '@mikro-orm/core';
import { ApiError, ConfigurationError } from '../../lib/errors.js';
import { buildModelDescription } from '../../lib/model/describe.js';
import { INT64_MAX, INT64_MIN } from '../../lib/schema/model-schemas.js';
import type { FieldDescription, ModelClass, ModelDescription, RawRecord } from '../../lib/types.js';
import { type CollectionPlan, collectionPlans } from './collections.js';
import { defaultOrderOf } from './default-order.js';
import {
  type AnyMikroORM,
  entityMetadata,
  isInverseOneToOne,
  jsonNameOf,
  modelFacts,
  servedProperties,
} from './describe.js';
import { type Dialect, dialectOf } from './dialect.js';
import { refuseEagerRelations } from './eager-relations.js';
import { fastPathObstacle } from './fast-path.js';
import { hasBuiltInType } from './field-types.js';
import { filteredTargetReferences } from './filtered-references.js';
import { readBackReason } from './read-back.js';
import { runtimeFiltersOf } from './runtime-filters.js';
import { subclassReferences } from './subclass-references.js';
import { warnUntypedProperties } from './untyped-properties.js';
import { type Decoder, decoderFor, type Encoder, encoderFor } from './values.js';

/** One served field with everything needed to read and write it. */
export interface FieldPlan {
  readonly field: FieldDescription;
  readonly prop: EntityProperty;
  /** For an embedded value: the plans of its fields, by JSON name. */
  readonly nested?: ReadonlyMap<string, FieldPlan>;
  /** What to put in the query builder's select list. */
  readonly select: string | object;
  readonly decode: Decoder;
  readonly encode: Encoder;
  /** The value keyset comparisons use: `encode`, except where the column orders otherwise. */
  readonly encodeKeyset: Encoder;
  /**
   * For a value of a user's custom type (a property's own, or a referenced key's): whether the
   * type converts this value for a query with this operator, as MikroORM converts it when it
   * builds the SQL, where a refusal is thrown from deep inside the query (a 500). Absent for
   * MikroORM's own types.
   */
  readonly queryable?: (value: unknown, op: string | undefined) => boolean;
  /** Whether the column is a 64-bit integer (its own, or a referenced key's), whatever JS form MikroORM gives it. */
  readonly bigint: boolean;
  /** The years a date or datetime column of this database holds, when it holds fewer than JavaScript. */
  readonly years?: readonly [first: number, last: number];
  /**
   * A 64-bit key (the primary key, or a reference to one) that only holds values JavaScript numbers
   * hold exactly: on SQLite, where MikroORM's driver reads integers as numbers (`keyBeyondReach`).
   */
  readonly exactKeysOnly?: boolean;
  /**
   * A decimal SQLite keeps as a REAL (its NUMERIC affinity): a value a double does not hold exactly
   * enough to read back equal is refused.
   */
  readonly doubleDecimal?: boolean;
}

/** Everything the adapter needs for one model. */
export interface ModelPlan {
  readonly description: ModelDescription;
  readonly meta: EntityMetadata;
  readonly entity: ModelClass;
  readonly fields: readonly FieldPlan[];
  readonly byName: ReadonlyMap<string, FieldPlan>;
  readonly primary: FieldPlan;
  /** The select list of every served field, with the root alias `e0`. */
  readonly select: readonly (string | object)[];
  /** Whether MikroORM filters (`@Filter`, global `filters`) may apply to reads of this model. */
  readonly filtered: boolean;
  readonly dialect: Dialect;
  /** Why the adapter's own SQL path may not serve this model (fast-path.ts), or undefined when it may. */
  readonly fastObstacle: string | undefined;
  /**
   * Why the plain path reads a row back after writing it (read-back.ts), or undefined when
   * MikroORM's entity after flush holds what a fresh read gives.
   */
  readonly readBack: string | undefined;
  /** The to-many relations the core serves (collections.ts), by JSON name. */
  readonly collections: ReadonlyMap<string, CollectionPlan>;
  /** The plan of another model: a many-to-one's target, for filters and sorts through it. */
  readonly planOf: (model: ModelClass) => ModelPlan;
  /** The to-one relations to a class below the root of a single-table hierarchy (subclass-references.ts). */
  readonly subclassReferences: readonly FieldPlan[];
  /** The to-one relations whose target's reads MikroORM filters (filtered-references.ts). */
  readonly filteredReferences: readonly FieldPlan[];
}

/** Resolves the plan of a model (the adapter's cache, so each model is planned once). */
export type PlanResolver = (model: ModelClass) => ModelPlan;

export { type Dialect, dialectOf } from './dialect.js';

/** The alias the adapter gives the root table in its queries. */
export const ROOT_ALIAS = 'e0';

function selectOf(field: FieldDescription, prop: EntityProperty, dialect: Dialect): string | object {
  const column = prop.fieldNames?.[0];
  // better-sqlite3 hands INTEGER values back as JS numbers, which round above 2^53: read as text.
  if (
    field.type === 'bigint' &&
    column !== undefined &&
    prop.fieldNames.length === 1 &&
    dialect === 'sqlite'
  ) {
    return raw('cast(?? as text) as ??', [`${ROOT_ALIAS}.${column}`, column]);
  }
  return prop.name;
}

/**
 * MySQL and MariaDB sort a native ENUM column by the position of its items but compare it with a
 * string as a string: keyset comparisons then use the position (1-based), which they compare by.
 */
function keysetEncoderOf(prop: EntityProperty, dialect: Dialect, encode: Encoder): Encoder {
  const items = prop.items;
  const native = /^enum\s*\(/i.test(prop.columnTypes?.[0] ?? '');
  if (
    dialect !== 'mysql' ||
    !native ||
    items === undefined ||
    !items.every((item) => typeof item === 'string')
  )
    return encode;
  const positions = new Map(items.map((item, index) => [item, index + 1]));
  return (value) => positions.get(value as string) ?? encode(value);
}

/** The plan of one field: conversions of its value, and the plans of an embedded value's fields. */
function fieldPlanOf(
  field: FieldDescription,
  prop: EntityProperty,
  platform: Platform,
  dialect: Dialect,
  inJson = false,
): FieldPlan {
  // A relation's value is the referenced key: convert it as that key's property.
  const valueProp = prop.targetMeta?.getPrimaryProps()[0] ?? prop;
  let nested: Map<string, FieldPlan> | undefined;
  if (field.type === 'object' && prop.targetMeta !== undefined) {
    const target = prop.targetMeta;
    const byJson = new Map(Object.values(target.properties).map((child) => [jsonNameOf(child), child]));
    nested = new Map(
      (field.fields ?? []).map((child) => [
        child.name,
        // An `object: true` embeddable is one JSON column: its values are no date columns.
        fieldPlanOf(
          child,
          byJson.get(child.name) as EntityProperty,
          platform,
          dialect,
          inJson || prop.object === true,
        ),
      ]),
    );
  }
  const encode =
    nested === undefined
      ? encoderFor(field.type, prop === valueProp ? prop : valueProp)
      : objectEncoder(nested);
  return {
    field,
    prop,
    ...(nested === undefined ? {} : { nested }),
    ...queryCheckOf(valueProp, platform),
    select: selectOf(field, prop, dialect),
    decode: decoderFor(field.type, valueProp, platform),
    encode,
    encodeKeyset: keysetEncoderOf(prop, dialect, encode),
    bigint: field.type === 'bigint' || valueProp.customType instanceof BigIntType,
    ...(inJson ? {} : yearsOf(field, dialect)),
    ...(dialect === 'sqlite' &&
    (field.primary || field.relation !== undefined) &&
    (field.type === 'bigint' || valueProp.customType instanceof BigIntType)
      ? { exactKeysOnly: true }
      : {}),
    ...(dialect === 'sqlite' && !inJson && field.type === 'decimal' ? { doubleDecimal: true } : {}),
  };
}

/** `queryable` of a property of a user's custom type; nothing for MikroORM's own types. */
function queryCheckOf(prop: EntityProperty, platform: Platform): Pick<FieldPlan, 'queryable'> {
  const custom = prop.customType;
  if (custom === undefined || hasBuiltInType(prop)) return {};
  return {
    queryable: (value, op) => {
      try {
        // The arguments of MikroORM's own call (QueryHelper.processCustomType).
        custom.convertToDatabaseValue(value, platform, {
          fromQuery: true,
          ...(op === undefined ? {} : { key: op }),
          mode: 'query',
        });
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * Whether no row can have this key: one beyond reach (`keyBeyondReach`), or one its custom type
 * refuses to convert (MikroORM would throw building the query). A lookup by it finds nothing.
 */
export function keyOfNoRow(field: FieldPlan, value: unknown): boolean {
  if (keyBeyondReach(field, value)) return true;
  return value !== null && value !== undefined && field.queryable?.(value, undefined) === false;
}

/**
 * Whether a key is one MikroORM cannot find again: SQLite hands integers to MikroORM as numbers,
 * and one beyond 2^53 comes back rounded, so the identity map, a re-read and an update's `where`
 * would name another row (or none). Such keys are not written, and a path naming one finds nothing.
 */
export function keyBeyondReach(field: FieldPlan, value: unknown): boolean {
  if (field.exactKeysOnly !== true || value === null || value === undefined) return false;
  let n: bigint;
  try {
    n = BigInt(value as string | number | bigint);
  } catch {
    return false;
  }
  return n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER);
}

const SINGLE_PRECISION_RANGE =
  'The column holds single-precision numbers: a magnitude from about 1.4e-45 to 3.4e38, or 0.';

const BEYOND_REACH =
  'SQLite hands integers to MikroORM as JavaScript numbers: a key beyond ±9007199254740991 would be read back as another.';

/**
 * MariaDB and MySQL hold the years 1000 to 9999 in `date` and `datetime` (mysql2 reads an earlier
 * year back as another: 0050 as 1950); PostgreSQL has no year 0, and MikroORM cannot write it a
 * year past 9999 (an offset can carry `9999-12-31T23:30-01:00` there). The API refuses such a year
 * on a write rather than store a changed value or fail without naming the field.
 */
function yearsOf(field: FieldDescription, dialect: Dialect): { years?: readonly [number, number] } {
  if (field.type !== 'date' && field.type !== 'datetime') return {};
  if (dialect === 'mysql') return { years: [1000, 9999] };
  if (dialect === 'postgresql') return { years: [1, 9999] };
  // SQLite holds any Date, but one past 9999 (or before 0) is served as `+010000-…`, no RFC 3339
  // date-time: its own answers, cursors, filters and a PUT of them would be refused.
  return { years: [0, 9999] };
}

/** An embedded value's JSON form (JSON names) in the form MikroORM expects (property names). */
function objectEncoder(nested: ReadonlyMap<string, FieldPlan>): Encoder {
  return (value) => {
    if (value === null || value === undefined || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
      const plan = nested.get(name);
      if (plan !== undefined && child !== undefined) out[plan.prop.name] = plan.encode(child);
    }
    return out;
  };
}

/** A resolver that plans each model once, for callers without a cache of their own. */
function cachingResolver(orm: AnyMikroORM): PlanResolver {
  const plans = new Map<ModelClass, ModelPlan>();
  const resolve: PlanResolver = (model) => {
    let plan = plans.get(model);
    if (plan === undefined) {
      plan = buildPlan(orm, model, resolve);
      plans.set(model, plan);
    }
    return plan;
  };
  return resolve;
}

/**
 * Builds the plan of a model; throws `ConfigurationError` for what the core cannot serve. Other
 * models' plans (the targets of its relations) come from `planOf`, only when a query needs them.
 */
export function buildPlan(orm: AnyMikroORM, model: ModelClass, planOf?: PlanResolver): ModelPlan {
  const meta = entityMetadata(orm, model);
  const collections = collectionPlans(orm, meta);
  const description = buildModelDescription({
    ...modelFacts(orm, model),
    defaultOrder: defaultOrderOf(meta),
    collections: collections.map((collection) => collection.description),
  });
  const platform = orm.em.getPlatform();
  const dialect = dialectOf(platform);
  const byJson = new Map(servedProperties(meta).map((prop) => [jsonNameOf(prop), prop]));
  const fields = description.fields.map((field) =>
    fieldPlanOf(field, byJson.get(field.name) as EntityProperty, platform, dialect),
  );
  const byName = new Map(fields.map((plan) => [plan.field.name, plan]));
  refuseForcedObjects(orm, meta, fields);
  refuseEagerRelations(meta);
  warnFilterArguments(orm, meta);
  warnUntypedProperties(meta, fields);
  const declared = Object.keys(meta.filters).length > 0 || Object.keys(orm.config.get('filters')).length > 0;
  const runtime = runtimeFiltersOf(orm);
  let obstacle: string | undefined;
  let epoch = -1;
  // Only to-one relations can reach a filtered target; a model without one never asks again.
  const references = fields.filter((field) => field.field.relation !== undefined);
  let filteredReferences: readonly FieldPlan[] = [];
  let referencesEpoch = -1;
  const plan: ModelPlan = {
    description,
    meta,
    entity: model,
    fields,
    byName,
    dialect,
    // Filters added with `em.addFilter()` may come at any time (runtime-filters.ts).
    get filtered() {
      return declared || runtime.reaches(meta);
    },
    primary: byName.get(description.primaryKey) as FieldPlan,
    select: fields.map((field) => field.select),
    get fastObstacle() {
      if (epoch !== runtime.epoch) {
        epoch = runtime.epoch;
        obstacle = fastPathObstacle(orm, plan, runtime);
      }
      return obstacle;
    },
    readBack: readBackReason({
      meta,
      fields,
      dialect,
      jsonReadByDriver: dialect === 'mysql' && platform.convertsJsonAutomatically(),
      localTimestamps: orm.config.get('forceUtcTimezone') === false,
    }),
    collections: new Map(collections.map((collection) => [collection.description.name, collection])),
    planOf: planOf ?? cachingResolver(orm),
    subclassReferences: subclassReferences(orm, fields),
    get filteredReferences() {
      if (references.length > 0 && referencesEpoch !== runtime.epoch) {
        referencesEpoch = runtime.epoch;
        filteredReferences = filteredTargetReferences(references, runtime);
      }
      return filteredReferences;
    },
  };
  return plan;
}

/**
 * MikroORM's `serialization.forceObject` serializes a to-one relation as an object (`{ id: 1 }`);
 * the API serves, filters and accepts a relation as the target's key, so such a model is refused.
 */
function refuseForcedObjects(orm: AnyMikroORM, meta: EntityMetadata, fields: readonly FieldPlan[]): void {
  const serialization = orm.config.get('serialization') as { forceObject?: boolean } | undefined;
  if (serialization?.forceObject !== true) return;
  const relation = fields.find(
    (plan) => (plan.field.relation !== undefined || isInverseOneToOne(plan.prop)) && !plan.field.hidden,
  );
  if (relation === undefined) return;
  throw new ConfigurationError(
    `${meta.className}.${relation.prop.name}: MikroORM's serialization.forceObject serializes this relation as an object, but the API serves, filters and accepts it as the related record's key. Turn serialization.forceObject off in the MikroORM options the adapter uses.`,
  );
}

/**
 * A default filter that takes arguments fails every find until they are set: per request (the
 * usual way, which registration cannot see) or once on the ORM. Warned at registration when they
 * are not set on the ORM, so that a forgotten middleware shows before the first request fails.
 */
function warnFilterArguments(orm: AnyMikroORM, meta: EntityMetadata): void {
  // MikroORM turns a filter of the ORM's options on unless told otherwise, an entity's @Filter
  // only with `default: true` (QueryHelper.isFilterActive).
  const filters: [string, FilterShape, boolean][] = [
    ...Object.entries(orm.config.get('filters') as Record<string, FilterShape>).map(
      ([name, filter]) => [name, filter, filter.default !== false] as [string, FilterShape, boolean],
    ),
    ...Object.entries(meta.filters as Record<string, FilterShape>).map(
      ([name, filter]) => [name, filter, filter.default === true] as [string, FilterShape, boolean],
    ),
  ];
  // A fork holds the ORM's own filter arguments (the global EntityManager refuses direct use).
  let fork: ReturnType<AnyMikroORM['em']['fork']> | undefined;
  for (const [name, filter, active] of filters) {
    const takesArguments =
      typeof filter.cond === 'function' && filter.cond.length > 0 && filter.args !== false;
    if (!active || !takesArguments) continue;
    if (filter.entity !== undefined && !matchesEntity(filter.entity, meta)) continue;
    fork ??= orm.em.fork();
    if (fork.getFilterParams(name) !== undefined) continue;
    process.emitWarning(
      `koa-model-api: MikroORM's filter '${name}' applies to ${meta.className} by default and takes arguments: set them for every request before the router runs (sessionOf(ctx, adapter).setFilterParams('${name}', { … }) in a middleware), or every request to ${meta.className} fails.`,
      { code: 'KMA_FILTER_ARGUMENTS' },
    );
  }
}

/** The parts of a MikroORM filter definition the warning reads. */
interface FilterShape {
  readonly cond?: unknown;
  readonly args?: boolean;
  readonly default?: boolean;
  readonly entity?: unknown;
}

/** Whether a global filter's `entity` option names this entity (by class, name, or a list of them). */
function matchesEntity(entity: unknown, meta: EntityMetadata): boolean {
  const names = (Array.isArray(entity) ? entity : [entity]).map((one) =>
    typeof one === 'string' ? one : (one as { name?: string } | undefined)?.name,
  );
  return names.includes(meta.className);
}

/** A row mapped by MikroORM (property names) in its record form. */
export function decodeRow(plan: ModelPlan, row: Record<string, unknown>): RawRecord {
  const record: RawRecord = {};
  for (const field of plan.fields) record[field.field.name] = field.decode(row[field.prop.name]);
  return record;
}

/** Validated JSON data (JSON names) in the form MikroORM expects (property names; unknown keys are dropped). */
export function encodeData(plan: ModelPlan, data: Readonly<RawRecord>): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    const field = plan.byName.get(name);
    // Computed values (formulas, getters, the inheritance discriminator) belong to the ORM.
    if (field === undefined || value === undefined || field.field.computed === true) continue;
    checkColumnRange(field, name, value);
    try {
      encoded[field.prop.name] = field.encode(value);
    } catch {
      // A custom type's fromJSON refused the value.
      throw ApiError.validation([{ path: name, message: 'The value cannot be stored in this field.' }]);
    }
  }
  return encoded;
}

/**
 * A value the column cannot hold is a 422 naming the field, in embedded values too (their own
 * columns): a year outside the column's (`yearsOf`), a bigint beyond 64 bits.
 */
function checkColumnRange(field: FieldPlan, path: string, value: unknown): void {
  if (field.nested !== undefined) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
      const nested = field.nested.get(name);
      if (nested !== undefined) checkColumnRange(nested, `${path}.${name}`, inner);
    }
    return;
  }
  if (field.years !== undefined) checkYear(field.years, path, value);
  else if (field.bigint) checkBigintRange(path, value);
  if (keyBeyondReach(field, value)) throw ApiError.validation([{ path, message: BEYOND_REACH }]);
  if (field.doubleDecimal === true && !readsBackFromReal(value))
    throw ApiError.validation([{ path, message: DOUBLE_DECIMAL }]);
  if (field.field.singlePrecision === true && typeof value === 'number' && value !== 0) {
    // Refused alike everywhere: PostgreSQL fails naming no column, SQLite would keep a double.
    const single = Math.fround(value);
    if (!Number.isFinite(single) || single === 0)
      throw ApiError.validation([{ path, message: SINGLE_PRECISION_RANGE }]);
  }
}

const DOUBLE_DECIMAL =
  'SQLite keeps a decimal as a double (about 15 significant digits): this value would read back changed.';

/** A decimal's digits, without sign, leading zeros or trailing fractional zeros (`-0012.50` → `-12.5`). */
function canonicalDecimal(text: string): string {
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = text.replace(/^[-+]/, '').split('.');
  const digits = `${whole.replace(/^0+(?=\d)/, '') || '0'}${fraction.replace(/0+$/, '') === '' ? '' : `.${fraction.replace(/0+$/, '')}`}`;
  return negative && digits !== '0' ? `-${digits}` : digits;
}

/**
 * Whether a decimal SQLite stores as a REAL reads back as the same number: the double nearest to
 * it prints as the same digits (`0.1`, `19.90`), not as other ones (`123456789012345678.25` comes
 * back `123456789012345680`) or `Infinity`.
 */
function readsBackFromReal(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'string' || !/^[-+]?\d+(\.\d+)?$/.test(value)) return true;
  const double = Number(value);
  if (!Number.isFinite(double)) return false;
  const printed = String(double);
  return !/e/i.test(printed) && canonicalDecimal(printed) === canonicalDecimal(value);
}

/** The year of a date (`YYYY-MM-DD`) or datetime (any offset: its UTC year) is within the column's. */
function checkYear([first, last]: readonly [number, number], path: string, value: unknown): void {
  if (typeof value !== 'string' && !(value instanceof Date)) return;
  const year =
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? Number(value.slice(0, 4))
      : new Date(value).getUTCFullYear();
  if (year < first || year > last)
    throw ApiError.validation([
      { path, message: `The column holds dates of the years ${first} to ${last}.` },
    ]);
}

/**
 * A 64-bit column holds no more: PostgreSQL and MariaDB refuse a larger value, but SQLite would
 * store it as a floating-point REAL (`1.0e+20`), a changed value. Refused alike everywhere, in the
 * signed range that filters and `{id}` parse.
 */
function checkBigintRange(path: string, value: unknown): void {
  if (value === null || (typeof value !== 'string' && typeof value !== 'bigint' && typeof value !== 'number'))
    return;
  let n: bigint;
  try {
    n = BigInt(value);
  } catch {
    return;
  }
  if (n < INT64_MIN || n > INT64_MAX)
    throw ApiError.validation([{ path, message: `must be between ${INT64_MIN} and ${INT64_MAX}` }]);
}

/**
 * The writable collections the data sets (arrays of target keys, by JSON name) as MikroORM
 * expects them: property names and the target key's own form (em.assign makes references of them).
 * Empty when the data sets none; others (one-to-many, inverse sides) are the core's to drop.
 */
export function encodeCollections(plan: ModelPlan, data: Readonly<RawRecord>): Record<string, unknown[]> {
  const encoded: Record<string, unknown[]> = {};
  if (plan.collections.size === 0) return encoded;
  for (const [name, collection] of plan.collections) {
    const keys = data[name];
    if (!collection.description.writable || !Array.isArray(keys)) continue;
    const key = plan.planOf(collection.description.targetModel).primary;
    encoded[collection.prop.name] = keys.map((item: unknown, index) => {
      if (keyBeyondReach(key, item))
        throw ApiError.validation([{ path: `${name}[${index}]`, message: BEYOND_REACH }]);
      try {
        return key.encode(item);
      } catch {
        throw ApiError.validation([
          { path: `${name}[${index}]`, message: 'The value is not a key of the target.' },
        ]);
      }
    });
  }
  return encoded;
}
