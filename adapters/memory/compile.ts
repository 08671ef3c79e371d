/**
 * Turns memory model declarations into model descriptions (through the core's
 * `buildModelDescription`, so table names and write protection follow the same rules as every
 * adapter) plus what the store needs at run time: defaults, generators and relation targets.
 * Collections are compiled in a second pass (collections.ts), once every model's fields are known.
 * Every mistake in a declaration is a `ConfigurationError` when the adapter is built.
 */
import { ConfigurationError } from '../../lib/errors.js';
import { buildModelDescription, type ModelFacts } from '../../lib/model/describe.js';
import { type MixinFieldSpec, mixinFieldsOf } from '../../lib/model/framework-model.js';
import type { FieldDescription, FieldType, ModelClass } from '../../lib/types.js';
import type { CompiledCollection, CompiledField, CompiledModel, Generator } from './compiled.js';
import type {
  MemoryDefault,
  MemoryFieldDeclaration,
  MemoryModelDeclaration,
  MemoryScalarField,
} from './declaration.js';
import { toStored, ValueProblem } from './values.js';

const FIELD_TYPES: ReadonlySet<string> = new Set<FieldType>([
  'string',
  'text',
  'uuid',
  'integer',
  'bigint',
  'number',
  'decimal',
  'boolean',
  'date',
  'datetime',
  'time',
  'json',
  'enum',
]);
const KEY_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['integer', 'bigint', 'string', 'text', 'uuid']);
const GENERATED_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['integer', 'bigint', 'uuid']);

type ScalarDeclaration = Omit<MemoryScalarField, 'relation'>;

function isClass(value: unknown): boolean {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

function fromMixin(spec: MixinFieldSpec): ScalarDeclaration {
  return {
    type: spec.type,
    nullable: spec.nullable,
    hidden: spec.hidden,
    ...(spec.default === undefined ? {} : { default: spec.default }),
    ...(spec.length === undefined ? {} : { maxLength: spec.length }),
  };
}

/** The model's own fields followed by the columns its mixins add (own declarations win). */
function allFields(declaration: MemoryModelDeclaration): [string, MemoryFieldDeclaration][] {
  const own = Object.entries(declaration.fields);
  const added = Object.entries(mixinFieldsOf(declaration.model))
    .filter(([name]) => !Object.hasOwn(declaration.fields, name))
    // A column left out when the model declares a rival one (another admin flag).
    .filter(
      ([, spec]) => !(spec.omitWhenDeclared ?? []).some((other) => Object.hasOwn(declaration.fields, other)),
    )
    .map(([name, spec]): [string, MemoryFieldDeclaration] => [name, fromMixin(spec)]);
  return [...own, ...added];
}

function checkScalar(where: string, decl: ScalarDeclaration): void {
  if (!FIELD_TYPES.has(decl.type))
    throw new ConfigurationError(`${where}: unknown field type "${String(decl.type)}".`);
  if (decl.type === 'enum' && (decl.enumValues === undefined || decl.enumValues.length === 0)) {
    throw new ConfigurationError(`${where}: an enum field needs a non-empty enumValues list.`);
  }
  if (decl.maxLength !== undefined) {
    if (decl.type !== 'string' && decl.type !== 'text')
      throw new ConfigurationError(`${where}: maxLength applies to string and text fields only.`);
    if (!Number.isSafeInteger(decl.maxLength) || decl.maxLength < 1)
      throw new ConfigurationError(`${where}: maxLength must be a positive integer.`);
  }
  if (decl.generated === true && !GENERATED_TYPES.has(decl.type)) {
    throw new ConfigurationError(
      `${where}: only integer, bigint and uuid fields can be generated; use a default function for others.`,
    );
  }
  if (decl.primary === true && !KEY_TYPES.has(decl.type)) {
    throw new ConfigurationError(
      `${where}: a primary key must be integer, bigint, string, text or uuid, not ${decl.type}.`,
    );
  }
}

function defaultMaker(
  where: string,
  field: Pick<FieldDescription, 'type' | 'maxLength' | 'enumValues'>,
  value: MemoryDefault,
): () => unknown {
  if (typeof value === 'function') {
    return () => {
      try {
        return toStored(field, value());
      } catch (error) {
        // A default function that returns a bad value is a bug in the declaration, not in the request.
        if (error instanceof ValueProblem)
          throw new TypeError(`${where}: the default function's value ${error.message}.`);
        throw error;
      }
    };
  }
  try {
    toStored(field, value);
  } catch (error) {
    if (error instanceof ValueProblem)
      throw new ConfigurationError(`${where}: the default ${error.message}.`);
    throw error;
  }
  // Converted per insert so that a json or Date default is never shared between rows.
  return () => toStored(field, value);
}

/** The JSON default shown in documents: static JSON values only (not functions, not Dates). */
function documentedDefault(value: MemoryDefault | undefined): { default?: unknown } {
  if (value === undefined || typeof value === 'function' || value instanceof Date) return {};
  return { default: structuredClone(value) };
}

/** All declarations of one adapter: resolves relation targets and their primary keys. */
export class Declarations {
  readonly #byModel = new Map<ModelClass, MemoryModelDeclaration>();

  constructor(declarations: readonly MemoryModelDeclaration[]) {
    for (const declaration of declarations) {
      if (this.#byModel.has(declaration.model)) {
        throw new ConfigurationError(`Model ${declaration.model.name} is declared twice.`);
      }
      this.#byModel.set(declaration.model, declaration);
    }
  }

  /** The declared model a relation points at: the class itself or what its thunk returns. */
  target(where: string, target: ModelClass | (() => ModelClass)): ModelClass {
    const resolved =
      this.#byModel.has(target as ModelClass) || isClass(target)
        ? (target as ModelClass)
        : (target as () => ModelClass)();
    if (!this.#byModel.has(resolved)) {
      const name = typeof resolved === 'function' ? resolved.name : String(resolved);
      throw new ConfigurationError(
        `${where}: the related model ${name} is not declared to this MemoryAdapter.`,
      );
    }
    return resolved;
  }

  /** The declaration of a declared model (one `target()` returned). */
  declarationOf(model: ModelClass): MemoryModelDeclaration {
    return this.#byModel.get(model) as MemoryModelDeclaration;
  }

  /** The name and declaration of a declared model's primary key. */
  primaryOf(where: string, model: ModelClass): [string, ScalarDeclaration] {
    const entry = allFields(this.#byModel.get(model) as MemoryModelDeclaration).find(
      ([, decl]) => decl.primary === true,
    );
    if (entry === undefined)
      throw new ConfigurationError(`${where}: the related model ${model.name} has no primary key.`);
    return entry as [string, ScalarDeclaration];
  }
}

type FieldFacts = ModelFacts['fields'][number];

/** One field's facts for `buildModelDescription` and its run-time behaviour. */
function compileField(
  where: string,
  name: string,
  decl: MemoryFieldDeclaration,
  declarations: Declarations,
): { facts: FieldFacts; runtime: Omit<CompiledField, 'field'> } {
  let shape: Pick<FieldDescription, 'type' | 'maxLength' | 'enumValues'>;
  let relation: Pick<FieldDescription, 'relation'> = {};
  let target: ModelClass | undefined;
  let generator: Generator | undefined;
  if (decl.relation !== undefined) {
    target = declarations.target(where, decl.relation.target);
    const [targetKey, keyDecl] = declarations.primaryOf(where, target);
    shape = { type: keyDecl.type };
    relation = { relation: { kind: 'many-to-one', target: target.name, targetModel: target, targetKey } };
  } else {
    checkScalar(where, decl);
    shape = {
      type: decl.type,
      ...(decl.maxLength === undefined ? {} : { maxLength: decl.maxLength }),
      ...(decl.enumValues === undefined ? {} : { enumValues: Object.freeze([...decl.enumValues]) }),
    };
    if (decl.generated === true) generator = decl.type === 'uuid' ? 'uuid' : 'sequence';
  }
  const primary = decl.primary === true;
  if (primary && decl.nullable === true)
    throw new ConfigurationError(`${where}: a primary key cannot be nullable.`);
  const nullable = decl.nullable === true;
  const hasDefault = decl.default !== undefined;
  const facts: FieldFacts = {
    name,
    ...shape,
    ...relation,
    nullable,
    required: !nullable && !hasDefault && generator === undefined,
    hasDefault,
    ...documentedDefault(decl.default),
    unique: decl.unique === true,
    hidden: decl.hidden === true,
    primary,
    generated: generator !== undefined,
  };
  const runtime = {
    ...(decl.default === undefined ? {} : { makeDefault: defaultMaker(where, shape, decl.default) }),
    ...(generator === undefined ? {} : { generator }),
    ...(target === undefined ? {} : { target }),
  };
  return { facts, runtime };
}

/**
 * Compiles one model; `collections` (compiled once every model's fields are known) go into its
 * description through `ModelFacts.collections`, checked there like the fields.
 */
export function compileModel(
  declaration: MemoryModelDeclaration,
  declarations: Declarations,
  collections: readonly CompiledCollection[] = [],
): CompiledModel {
  const modelName = declaration.model.name;
  const runtime = new Map<string, Omit<CompiledField, 'field'>>();
  const facts: FieldFacts[] = [];
  for (const [name, decl] of allFields(declaration)) {
    if (name === '') throw new ConfigurationError(`${modelName}: a field name is empty.`);
    const field = compileField(`${modelName}.${name}`, name, decl, declarations);
    facts.push(field.facts);
    runtime.set(name, field.runtime);
  }
  const description = buildModelDescription({
    model: declaration.model,
    name: modelName,
    ...(declaration.table === undefined ? {} : { table: declaration.table }),
    primaryKeys: facts.filter((fact) => fact.primary).map((fact) => fact.name),
    fields: facts,
    collections: collections.map((collection) => collection.description),
  });
  const fields = description.fields.map((field): CompiledField => ({ field, ...runtime.get(field.name) }));
  return {
    description,
    fields,
    fieldsByName: new Map(fields.map((field) => [field.field.name, field])),
    primary: fields.find((field) => field.field.primary) as CompiledField,
    collections: new Map(collections.map((collection) => [collection.description.name, collection])),
  };
}
