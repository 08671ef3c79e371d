/**
 * Reads MikroORM's runtime metadata of one entity into the core's `ModelFacts`, checking that the
 * ORM applied koa-model-api's conventions (table name, mixin columns) where they matter.
 */
import {
  ArrayType,
  EntityCaseNamingStrategy,
  type EntityClass,
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  type EntitySchema,
  type IDatabaseDriver,
  type MikroORM,
  MongoNamingStrategy,
  type Platform,
  ReferenceKind,
  Type,
  UnderscoreNamingStrategy,
} from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import type { ModelFacts } from '../../lib/model/describe.js';
import { explicitTableName, mixinFieldsOf } from '../../lib/model/framework-model.js';
import { defaultTableName } from '../../lib/model/table-name.js';
import { TEXT_TYPES } from '../../lib/query/list-query.js';
import type { FieldDescription, FieldType, ModelClass } from '../../lib/types.js';
import { checkColumnAgreement } from './column-agreement.js';
import { declaredTableName, omittedWhenDeclared } from './conventions.js';
import { hasCreateHooks } from './create-hooks.js';
import { decimalDigitsOf } from './decimal-digits.js';
import { dialectOf } from './dialect.js';
import { keyFractionDigits, refuseInexactKey } from './exact-keys.js';
import { fieldTypeOf, integerRangeOf, SAFE_INTEGERS, stringLengthOf } from './field-types.js';
import { isSinglePrecision } from './float-precision.js';
import { jsonFilterLimit } from './json-filters.js';
import { keyComparisonOf } from './key-comparison.js';
import { takesPatterns } from './pattern-columns.js';
import { refuseUntypedVersion } from './untyped-properties.js';

/** A MikroORM instance with any SQL or other driver and any entity list. */
export type AnyMikroORM = MikroORM<
  IDatabaseDriver,
  EntityManager<IDatabaseDriver>,
  readonly (string | EntityClass | EntitySchema)[]
>;

type FieldFacts = ModelFacts['fields'][number];

/** MikroORM's own strategies: a table name they derive means the user did not choose one. */
const MIKRO_ORM_STRATEGIES: ReadonlySet<unknown> = new Set([
  UnderscoreNamingStrategy,
  EntityCaseNamingStrategy,
  MongoNamingStrategy,
]);

/**
 * The properties the core serves, as MikroORM's serializer shows them: scalars (stored, formulas,
 * getters and other `persist: false` values), embedded values (not their flattened columns) and
 * to-one relations, owning or inverse (MikroORM joins an inverse one-to-one's owner on every load
 * and serializes its key). Collections are not part of a record.
 */
export function servedProperties(meta: EntityMetadata): EntityProperty[] {
  const own = meta.props.filter((prop) => isServed(meta, prop));
  const descendants = tptDescendants(meta);
  if (descendants.length === 0) return own;
  // A table-per-type class's query joins its subclasses' tables and loads each row as an instance
  // of its own class: their properties are served too, in the records of their class only. Two
  // subclasses with a property of the same name share one field.
  const names = new Set(own.map((prop) => prop.name));
  const inherited: EntityProperty[] = [];
  for (const descendant of descendants) {
    for (const prop of descendant.props) {
      if (names.has(prop.name) || !isServed(descendant, prop)) continue;
      names.add(prop.name);
      inherited.push(prop);
    }
  }
  return [...own, ...inherited];
}

function isServed(meta: EntityMetadata, prop: EntityProperty): boolean {
  if (prop.embedded !== undefined) return false;
  // A discriminator MikroORM added itself is never hydrated, so its serializer never shows it.
  if (prop.userDefined === false && isDiscriminator(meta, prop)) return false;
  if (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.EMBEDDED) return true;
  return prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE;
}

/** The subclasses whose tables a table-per-type class's queries join (none outside such a hierarchy). */
function tptDescendants(meta: EntityMetadata): readonly EntityMetadata[] {
  if (meta.inheritanceType !== 'tpt') return [];
  return meta.allTPTDescendants ?? [];
}

/**
 * Whether the property is a subclass's own, seen on a class above it: the root of a single-table
 * hierarchy, or any class of a table-per-type one. MikroORM loads such rows as instances of their
 * subclasses, whose serialization has it.
 */
function isVariant(meta: EntityMetadata, prop: EntityProperty): boolean {
  if (prop.inherited === true && meta.root === meta && meta.discriminatorMap !== undefined) return true;
  return meta.inheritanceType === 'tpt' && meta.properties[prop.name as never] !== prop;
}

/** Whether the property is the inverse side of a one-to-one: its key lives in the other table. */
export function isInverseOneToOne(prop: EntityProperty): boolean {
  return prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner !== true;
}

/** The properties stored in the entity's own table (no formulas, getters or embedded values). */
export function storedProperties(meta: EntityMetadata): EntityProperty[] {
  return servedProperties(meta).filter(
    (prop) =>
      prop.persist !== false &&
      prop.formula === undefined &&
      prop.kind !== ReferenceKind.EMBEDDED &&
      !isInverseOneToOne(prop) &&
      !isVariant(meta, prop),
  );
}

/** The JSON key of a property: MikroORM's `serializedName`, else its name. */
export function jsonNameOf(prop: EntityProperty): string {
  // MikroORM's serializer takes an empty serializedName as none.
  return prop.serializedName === undefined || prop.serializedName === '' ? prop.name : prop.serializedName;
}

/**
 * Whether the entity is a class of an inheritance hierarchy with no discriminator value of its
 * own (a root or a middle class outside the map): every row is one of its subclasses'.
 */
function hasNoOwnRows(meta: EntityMetadata): boolean {
  const root = meta.root ?? meta;
  return root.discriminatorColumn !== undefined && meta.discriminatorValue === undefined;
}

/**
 * Whether MikroORM never writes some rows the entity's route serves: it is `readonly: true`, or a
 * class below it in its inheritance hierarchy is (a flush skips an instance of that class, so an
 * update through the root would answer with values it never stored).
 */
function servesReadOnlyRows(orm: AnyMikroORM, meta: EntityMetadata): boolean {
  if (meta.readonly === true) return true;
  if ((meta.root ?? meta).discriminatorColumn === undefined) return false;
  const prototype = (meta.class as { prototype?: object } | undefined)?.prototype;
  if (prototype === undefined) return false;
  return [...orm.getMetadata().getAll().values()].some(
    (other: EntityMetadata) =>
      other.readonly === true &&
      other.root === meta.root &&
      Object.prototype.isPrototypeOf.call(prototype, (other.class as { prototype?: object }).prototype ?? {}),
  );
}

/** Whether the property is the discriminator of a single-table inheritance hierarchy. */
export function isDiscriminator(meta: EntityMetadata, prop: EntityProperty): boolean {
  const column = meta.root?.discriminatorColumn ?? meta.discriminatorColumn;
  return column !== undefined && column === prop.name;
}

/**
 * Whether MikroORM's serializer leaves the property out though it is not `hidden`: a name starting
 * with `_` (its serializer's rule for private fields; a key, an `accessor`'s backing field and a
 * getter, which `toObject()` shows through its getter pass, are kept), or a stored column that
 * MikroORM never loads (`hydrate: false`, no getter): the entity never holds its value.
 */
export function isLeftOutBySerializer(prop: EntityProperty): boolean {
  if (prop.getter === true || prop.primary === true) return false;
  // As its serializer: `accessor: false` is no accessor.
  if (!prop.accessor && prop.name.startsWith('_')) return true;
  return isNeverLoaded(prop);
}

/**
 * Whether the owning side of an inverse relation (a one-to-many's many-to-one, an inverse
 * many-to-many's or one-to-one's owner) is hidden: the link it stores is then the owner's secret,
 * and the inverse side, which shows the same link from the other end, is hidden too.
 */
export function owningSideHidden(prop: EntityProperty): boolean {
  if (prop.mappedBy === undefined || prop.mappedBy === '') return false;
  const owning = prop.targetMeta?.properties[prop.mappedBy as never] as EntityProperty | undefined;
  return owning !== undefined && (owning.hidden === true || isLeftOutBySerializer(owning));
}

/**
 * A backing field MikroORM maps under the name of its accessor (`_email` with `accessor: 'email'`,
 * or the getter decorated with the field's name): column and JSON key are the accessor's, `em.find`
 * and `em.assign` take the field's name, `em.create` mostly the accessor's. Not `accessor: true`,
 * which maps the get/set pair itself under its own name.
 */
export function isBehindAccessor(prop: EntityProperty): boolean {
  return typeof prop.accessor === 'string' && prop.accessor !== prop.name;
}

/**
 * A stored column of the user's MikroORM never hydrates (`hydrate: false` and no getter). Its
 * subclasses' columns on a single-table root are left aside: MikroORM marks those so itself.
 */
export function isNeverLoaded(prop: EntityProperty): boolean {
  return (
    prop.hydrate === false &&
    prop.getter !== true &&
    prop.persist !== false &&
    prop.inherited !== true &&
    prop.kind === ReferenceKind.SCALAR
  );
}

/**
 * Values the ORM computes: formulas, getters and other `persist: false` values, the discriminator,
 * and a getter without a setter MikroORM stores (`hydrate: false`, a persisted getter): the entity
 * computes it, so a value sent for it could never be set.
 */
export function isComputed(meta: EntityMetadata, prop: EntityProperty): boolean {
  return (
    prop.formula !== undefined ||
    prop.persist === false ||
    isDiscriminator(meta, prop) ||
    (prop.getter === true && prop.setter !== true)
  );
}

/** The metadata of a model, or a ConfigurationError when the ORM does not know it as an entity. */
export function entityMetadata(orm: AnyMikroORM, model: ModelClass): EntityMetadata {
  const meta = orm.getMetadata().find(model as never);
  if (meta === undefined || meta.embeddable) {
    throw new ConfigurationError(
      `${model.name} is not an entity of this MikroORM instance: add it to the ORM's \`entities\`.`,
    );
  }
  // An abstract root of a single-table hierarchy owns the table and is queried like any root.
  if (meta.abstract && !(meta.root === meta && meta.discriminatorColumn !== undefined)) {
    throw new ConfigurationError(
      `${meta.className} is an abstract entity (MikroORM maps no table of its own to it): register its concrete subclasses instead.`,
    );
  }
  if (meta.virtual || meta.expression !== undefined || meta.view) {
    throw new ConfigurationError(
      `${meta.className} is a virtual entity or a view; koa-model-api serves only table-backed entities.`,
    );
  }
  return meta;
}

// An instance shows ORM-side defaults that metadata does not record (`id = randomUUID()`).
function initialValues(meta: EntityMetadata): Record<string, unknown> {
  try {
    const Ctor = meta.class as unknown as new () => Record<string, unknown>;
    return new Ctor();
  } catch {
    return {};
  }
}

function staticDefault(prop: EntityProperty, type: FieldType): unknown {
  const value = prop.default;
  if (value === undefined || value === null || type === 'json') return undefined;
  if (type === 'bigint' || type === 'decimal') return String(value);
  if (type === 'boolean' && typeof value !== 'boolean')
    return value === 1 || value === '1' || value === 'true';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : undefined;
}

function isUnique(meta: EntityMetadata, prop: EntityProperty): boolean {
  if (prop.unique) return true;
  return meta.uniques.some((unique) => {
    const props =
      unique.properties === undefined ? [] : ([] as string[]).concat(unique.properties as string | string[]);
    return (
      props.length === 1 &&
      props[0] === prop.name &&
      unique.where === undefined &&
      unique.expression === undefined
    );
  });
}

function relationFacts(
  meta: EntityMetadata,
  prop: EntityProperty,
  columns?: Platform,
): Pick<FieldDescription, 'type' | 'relation'> {
  const target = prop.targetMeta;
  const targetKeyProp = target?.getPrimaryProps()[0];
  if (target === undefined || targetKeyProp === undefined || target.primaryKeys.length !== 1) {
    throw new ConfigurationError(
      `${meta.className}.${prop.name} references ${target?.className ?? 'an entity'} with a composite or missing primary key; koa-model-api needs single-column keys.`,
    );
  }
  const type = targetKeyProp.kind === ReferenceKind.SCALAR ? fieldTypeOf(targetKeyProp, columns) : undefined;
  if (type === undefined) {
    throw new ConfigurationError(
      `${meta.className}.${prop.name}: the primary key of ${target.className} has a type koa-model-api cannot serve.`,
    );
  }
  refuseInexactKey(meta, targetKeyProp, type, prop);
  return {
    type,
    relation: {
      kind: 'many-to-one',
      target: target.className,
      targetModel: target.class as unknown as ModelClass,
      targetKey: jsonNameOf(targetKeyProp),
    },
  };
}

/** The core kind of a scalar property, or a ConfigurationError saying what to do. */
function scalarType(meta: EntityMetadata, prop: EntityProperty, columns?: Platform): FieldType {
  checkJsonForm(meta, prop);
  const mapped = fieldTypeOf(prop, columns);
  if (mapped === 'date' && prop.runtimeType === 'Date') {
    // A value the ORM computes is served as MikroORM serializes it, whatever it holds.
    if (isComputed(meta, prop)) return 'json';
    // MikroORM hydrates the day as a Date at a midnight the driver and the time zone choose, and
    // serializes that timestamp: a client could neither send a day nor get back what it sent.
    throw new ConfigurationError(
      `${meta.className}.${prop.name} is \`type: 'date'\` on a Date property: MikroORM holds the day as a Date at a midnight that depends on the driver and the time zone, and serializes it as a timestamp, so the API could not give back what a client sends. Declare it \`${prop.name}!: string\` (MikroORM's 'YYYY-MM-DD' form of a date), or \`type: 'datetime'\` for a point in time.`,
    );
  }
  if (mapped !== undefined) {
    if (columns !== undefined) checkColumnAgreement(meta, prop, mapped, columns);
    return mapped;
  }
  // A value the ORM computes or keeps in memory only is shown as MikroORM serializes it.
  if (isComputed(meta, prop)) return 'json';
  throw new ConfigurationError(
    `${meta.className}.${prop.name} has the type "${String(prop.type)}", which koa-model-api cannot serve as JSON; use a supported type, a custom Type, or \`persist: false\`.`,
  );
}

/**
 * A JSON name is also a name in the query string: a dot there walks into a relation or an
 * embedded object (`filter[owner.name]`), brackets end the name (`filter[name][$like]`).
 */
function checkJsonName(meta: EntityMetadata, prop: EntityProperty): void {
  const name = jsonNameOf(prop);
  if (!/[.,[\]]|^-/.test(name)) return;
  throw new ConfigurationError(
    `${meta.className}.${prop.name}: its JSON name "${name}" holds a ".", a "," or a bracket, or starts with "-", which list parameters read otherwise (filter[a.b] walks a path, sort=a,b lists two fields, sort=-a sorts descending). Give it a serializedName without them.`,
  );
}

/** Two served properties under one JSON name: a body, a path or a cursor could not tell them apart. */
function checkJsonNamesUnique(meta: EntityMetadata, props: readonly EntityProperty[]): void {
  const seen = new Map<string, string>();
  for (const prop of props) {
    const name = jsonNameOf(prop);
    const other = seen.get(name);
    if (other !== undefined)
      throw new ConfigurationError(
        `${meta.className}: the properties ${other} and ${prop.name} are both served as "${name}" (serializedName). Give one of them another serializedName.`,
      );
    seen.set(name, prop.name);
  }
}

/**
 * A value written through the API arrives in its JSON form: a custom `serializer`, or a custom Type
 * whose `toJSON` changes the value without a `fromJSON` to undo it, would be stored changed.
 */
function checkJsonForm(meta: EntityMetadata, prop: EntityProperty): void {
  if (isComputed(meta, prop)) return;
  if (prop.serializer !== undefined) {
    throw new ConfigurationError(
      `${meta.className}.${prop.name} has a \`serializer\`: koa-model-api cannot turn its JSON form back into the value on writes. Use a custom Type with toJSON() and fromJSON(), or make the property \`persist: false\`.`,
    );
  }
  const custom = prop.customType as (Type<unknown, unknown> & { fromJSON?: unknown }) | undefined;
  if (custom === undefined || typeof custom.fromJSON === 'function') return;
  if (custom.toJSON !== Type.prototype.toJSON) {
    throw new ConfigurationError(
      `${meta.className}.${prop.name}: the custom type ${custom.constructor.name} changes the value in toJSON() but has no fromJSON() to read it back, so a value sent by a client could not be stored as meant. Add fromJSON(value) to ${custom.constructor.name}.`,
    );
  }
}

/** The item kind of an array property (`ArrayType`, `string[]`, `number[]`). */
function itemTypeOf(prop: EntityProperty): FieldDescription['itemType'] {
  const declared = `${String(prop.runtimeType ?? '')} ${String(prop.type ?? '')}`.toLowerCase();
  return declared.includes('number[]') ? 'number' : 'string';
}

function isArrayProperty(prop: EntityProperty): boolean {
  return prop.customType instanceof ArrayType || (prop.array === true && prop.kind === ReferenceKind.SCALAR);
}

// PostgreSQL column types with no equality or ordering operator (`operator does not exist: xml =
// unknown`, `could not identify an ordering operator for type path`): em.find fails on any filter
// or sort of them, so the API offers none (fidelity round 12).
const WITHOUT_COMPARISON = /^\s*(?:xml|line|lseg|box|path|polygon)\b/i;

/** Whether the property's column can be neither compared nor ordered by its database. */
function withoutComparison(prop: EntityProperty, columns: Platform): boolean {
  return dialectOf(columns) === 'postgresql' && WITHOUT_COMPARISON.test(String(prop.columnTypes?.[0] ?? ''));
}

/**
 * The facts of one property; embedded values carry their own fields. `columns` is the platform of
 * the property's column; absent for a value stored inside JSON (an `object: true` embeddable).
 */
function fieldFacts(
  meta: EntityMetadata,
  prop: EntityProperty,
  initial: Record<string, unknown>,
  varcharLength: number,
  platform: Platform,
  columns?: Platform,
): FieldFacts {
  checkJsonName(meta, prop);
  const isRelation = prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE;
  // An inverse one-to-one is read-only, like a computed value: MikroORM writes the owning side.
  const inverse = isInverseOneToOne(prop);
  const variant = isVariant(meta, prop);
  const computed = isComputed(meta, prop) || inverse;
  let type: FieldType;
  let relation: FieldDescription['relation'];
  let nested: FieldDescription[] | undefined;
  let itemType: FieldDescription['itemType'];
  if (inverse) {
    // The owner's key, served as MikroORM serializes it; not a relation the core filters or embeds.
    ({ type } = relationFacts(meta, prop, columns));
  } else if (isRelation) {
    ({ type, relation } = relationFacts(meta, prop, columns));
  } else if (prop.kind === ReferenceKind.EMBEDDED) {
    type = 'object';
    nested = embeddedFields(meta, prop, varcharLength, platform, prop.object === true ? undefined : columns);
  } else if (isArrayProperty(prop)) {
    type = 'array';
    itemType = itemTypeOf(prop);
  } else {
    type = scalarType(meta, prop, columns);
  }
  const primary = meta.primaryKeys.includes(prop.name);
  if (primary) refuseInexactKey(meta, prop, type);
  refuseUntypedVersion(meta, prop);
  // What a timestamp or time key's column keeps: a client's key with more is refused on create.
  const fractionDigits =
    primary && columns !== undefined ? keyFractionDigits(prop, type, dialectOf(columns)) : undefined;
  const nullable = prop.nullable === true;
  const ormGenerated = prop.onCreate !== undefined || initial[prop.name] != null;
  const databaseGenerated =
    prop.autoincrement === true || prop.generated !== undefined || (primary && prop.defaultRaw !== undefined);
  const generated = databaseGenerated || (primary && ormGenerated);
  const defaultValue = computed ? undefined : staticDefault(prop, type);
  const hasDefault =
    computed ||
    generated ||
    ormGenerated ||
    prop.default != null ||
    prop.defaultRaw !== undefined ||
    prop.version === true;
  const getter = prop.persist === false && prop.formula === undefined && !isDiscriminator(meta, prop);
  // The column's own range (unsigned, small integers). A formula or a getter has no column: its
  // value is whatever the expression gives (on SQLite and MariaDB `qty * 10` leaves int32), so
  // neither its schema nor its filters claim a column's range, only what JSON numbers hold exactly.
  const range =
    type !== 'integer'
      ? undefined
      : prop.formula !== undefined || getter
        ? SAFE_INTEGERS
        : !computed && columns !== undefined
          ? integerRangeOf(prop, columns)
          : undefined;
  // The digits a decimal column holds, where the database refuses more.
  const digits =
    type === 'decimal' && !computed && !isRelation && columns !== undefined
      ? decimalDigitsOf(prop, columns)
      : undefined;
  // How the database compares a text key, when not exactly (MySQL/MariaDB collations).
  const comparison =
    primary && columns !== undefined
      ? keyComparisonOf(prop, type, columns, { name: meta.tableName, schema: meta.schema })
      : undefined;
  const field: FieldFacts = {
    name: jsonNameOf(prop),
    ...(jsonNameOf(prop) === prop.name ? {} : { property: prop.name }),
    type,
    nullable: nullable || variant || (computed && !isDiscriminator(meta, prop)),
    required: !nullable && !hasDefault && !variant,
    hasDefault,
    unique: isUnique(meta, prop),
    // What MikroORM's serializer never shows is hidden: never served, filtered or written by clients.
    hidden: prop.hidden === true || isLeftOutBySerializer(prop) || (inverse && owningSideHidden(prop)),
    primary,
    generated,
    // Generated columns, version counters and computed values belong to the database and the ORM.
    ...(prop.generated !== undefined || prop.version === true || computed ? { writable: false } : {}),
    // MikroORM's onUpdate overwrites an assigned value in the entity, but not in the row when it
    // returns the stored one: a client's value would be stored or not by chance.
    ...(prop.onUpdate !== undefined && !computed ? { setOnUpdate: true } : {}),
    ...(computed ? { computed: true } : {}),
    ...(prop.lazy === true ? { lazy: true } : {}),
    ...(getter ||
    inverse ||
    variant ||
    type === 'object' ||
    type === 'array' ||
    (columns !== undefined && withoutComparison(prop, columns))
      ? { queryable: false }
      : {}),
    // Another subclass's field on the root: in the records of that subclass only, never written here.
    ...(variant ? { variant: true, writable: false } : {}),
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
    // Servers make a string without a length varchar(255); SQLite gets the same limit so that the
    // API (validation, OpenAPI) does not depend on the database.
    ...(type === 'string' && !isRelation && !computed
      ? { maxLength: stringLengthOf(prop) ?? varcharLength }
      : {}),
    // An enum array (MikroORM's EnumArrayType) keeps its items too; discovery clears its `enum` flag.
    ...((type === 'enum' || type === 'array') && prop.items !== undefined && prop.items.length > 0
      ? { enumValues: Object.freeze([...prop.items]) }
      : {}),
    ...range,
    ...(digits === undefined ? {} : { digits }),
    ...(fractionDigits === undefined ? {} : { fractionDigits }),
    ...(type === 'number' && !computed && columns !== undefined && isSinglePrecision(prop, columns)
      ? { singlePrecision: true }
      : {}),
    ...(prop.customOrder !== undefined && prop.customOrder.length > 0 ? { customOrder: true } : {}),
    ...(TEXT_TYPES.has(type) && columns !== undefined && !takesPatterns(prop, type)
      ? { patterns: false }
      : {}),
    ...(comparison === undefined ? {} : { comparison }),
    ...(relation === undefined ? {} : { relation }),
    ...(nested === undefined ? {} : { fields: nested }),
    ...(itemType === undefined ? {} : { itemType }),
  };
  return field;
}

/** The fields of an embedded value, from the embeddable's own properties (JSON names, as its serializer). */
function embeddedFields(
  meta: EntityMetadata,
  prop: EntityProperty,
  varcharLength: number,
  platform: Platform,
  columns: Platform | undefined,
): FieldDescription[] {
  const target = prop.targetMeta;
  if (prop.array === true || target === undefined || (target.polymorphs?.length ?? 0) > 0) {
    throw new ConfigurationError(
      `${meta.className}.${prop.name} is ${prop.array === true ? 'an array of embeddables' : 'a polymorphic embeddable'}, which koa-model-api does not serve yet; use a JSON property or a related entity.`,
    );
  }
  const initial = initialValues(target);
  const dialect = dialectOf(platform);
  return Object.entries(prop.embeddedProps ?? {})
    .map(([name, flat]) => ({
      child: target.properties[name as keyof typeof target.properties] as EntityProperty,
      // The entity's own view of the value: inside JSON, the path MikroORM queries (`fieldNameRaw`).
      flat: flat as EntityProperty,
    }))
    .filter(({ child }) => child !== undefined)
    .map(({ child, flat }) => {
      const facts = fieldFacts(target, child, initial, varcharLength, platform, columns);
      // An embeddable nested inside JSON: its values are read through the entity's own flattened
      // properties (`work~geo`), whose paths carry the casts MikroORM queries with; the
      // embeddable's own view of them (`Address.geo`) has neither path nor cast.
      const inner =
        columns === undefined && facts.type === 'object'
          ? { fields: embeddedFields(target, flat, varcharLength, platform, undefined) }
          : {};
      const writable = facts.writable ?? true;
      // Inside JSON, MikroORM compares `json_extract(…)`, which some databases read otherwise.
      const limit =
        columns === undefined && facts.type !== 'object' ? jsonFilterLimit(facts, flat, dialect) : undefined;
      return {
        ...facts,
        ...inner,
        primary: false,
        writable,
        ...(limit === undefined ? {} : { filterLimit: limit }),
      } as FieldDescription;
    });
}

/**
 * Checks the table MikroORM maps the model to against the core's rule: `__tablename__` must have
 * been applied, and a derived (not explicit) name must follow the plural rule unless the ORM uses
 * a naming strategy of the user's own.
 */
function checkedTable(orm: AnyMikroORM, meta: EntityMetadata, model: ModelClass): string {
  const fix =
    'Build the ORM with mikroOrmOptions({...}) (or MikroOrmAdapter.connect()), which installs the naming strategy and the discovery hook';
  const wanted = explicitTableName(model);
  if (wanted !== undefined) {
    if (meta.tableName !== wanted) {
      throw new ConfigurationError(
        `${meta.className}.__tablename__ is "${wanted}" but MikroORM maps it to "${meta.tableName}". ${fix}.`,
      );
    }
    return wanted;
  }
  const strategy = orm.config.getNamingStrategy();
  const derived =
    declaredTableName(meta.class) === undefined &&
    strategy.classToTableName(meta.className) === meta.tableName;
  const builtIn = MIKRO_ORM_STRATEGIES.has(strategy.constructor);
  const rule = defaultTableName(meta.className);
  if (derived && builtIn && meta.tableName !== rule) {
    throw new ConfigurationError(
      `${meta.className} maps to the table "${meta.tableName}" by MikroORM's ${strategy.constructor.name}, but koa-model-api names it "${rule}" (its routes' path). Give the entity an explicit tableName, or build the ORM with mikroOrmOptions({...}) (or MikroOrmAdapter.connect()) without a namingStrategy of your own: it then installs koa-model-api's, with its discovery hook.`,
    );
  }
  return meta.tableName;
}

function checkMixinColumns(meta: EntityMetadata, model: ModelClass): void {
  const has = (name: string) => name in meta.properties;
  const missing = Object.entries(mixinFieldsOf(model))
    .filter(([name, spec]) => !has(name) && !omittedWhenDeclared(spec).some(has))
    .map(([name]) => name);
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${meta.className} uses a mixin whose columns (${missing.join(', ')}) are missing from its MikroORM metadata. Build the ORM with mikroOrmOptions({...}) (or MikroOrmAdapter.connect()), which adds them at discovery.`,
    );
  }
}

/**
 * MySQL and MariaDB hand back only an auto-increment key after an insert: a key the column's
 * default makes (`defaultRaw: 'uuid()'`) could not be known, and MikroORM would go on with none.
 */
function checkGeneratedKey(meta: EntityMetadata, platform: Platform, initial: Record<string, unknown>): void {
  if (dialectOf(platform) !== 'mysql') return;
  for (const prop of meta.getPrimaryProps()) {
    const madeByDatabase =
      prop.autoincrement !== true && (prop.defaultRaw !== undefined || prop.generated !== undefined);
    if (!madeByDatabase || prop.onCreate !== undefined || initial[prop.name] != null) continue;
    throw new ConfigurationError(
      `${meta.className}.${prop.name}: MySQL and MariaDB return only an auto-increment key after an insert, so the key this column's default makes could not be read back. Make the key in code (onCreate: () => randomUUID(), or an initializer), or use an auto-increment key.`,
    );
  }
}

/** The served properties, each under a JSON name of its own. */
function servedPropertiesChecked(meta: EntityMetadata): EntityProperty[] {
  const props = servedProperties(meta);
  checkJsonNamesUnique(meta, props);
  return props;
}

/** What the core needs to build the model's description (composite keys are refused there). */
export function modelFacts(orm: AnyMikroORM, model: ModelClass): ModelFacts {
  const meta = entityMetadata(orm, model);
  checkMixinColumns(meta, model);
  const table = checkedTable(orm, meta, model);
  const initial = initialValues(meta);
  // By JSON name, as every field: a key with a `serializedName` is served under it.
  const primaryKeys = meta.primaryKeys.map((name) => {
    const prop = meta.properties[name] as EntityProperty | undefined;
    return prop === undefined ? String(name) : jsonNameOf(prop);
  });
  // Refuse composite keys before reading fields: a composite key may be a relation of any shape.
  if (primaryKeys.length !== 1) return { model, name: meta.className, table, primaryKeys, fields: [] };
  checkGeneratedKey(meta, orm.em.getPlatform(), initial);
  return {
    model,
    name: meta.className,
    table,
    primaryKeys,
    fields: servedPropertiesChecked(meta).map((prop) =>
      fieldFacts(
        meta,
        prop,
        initial,
        orm.em.getPlatform().getDefaultVarcharLength(),
        orm.em.getPlatform(),
        orm.em.getPlatform(),
      ),
    ),
    // MikroORM never writes a `readonly: true` entity (a flush skips it): its routes are reads only.
    ...(servesReadOnlyRows(orm, meta) ? { readOnly: true } : {}),
    // A class whose rows are all its subclasses': a create would need a subclass the client cannot
    // choose (the discriminator is MikroORM's to set).
    ...(hasNoOwnRows(meta) ? { creatable: false } : {}),
    // MikroORM's `forceUndefined` loads null as undefined, which its serializer leaves out.
    ...(orm.config.get('forceUndefined') === true ? { omitsNull: true } : {}),
    ...(hasCreateHooks(orm.em.getEventManager(), meta) ? { createHooks: true } : {}),
  };
}
