/**
 * Everything a `CrudRouter` derives from the model description, compiled once: validators,
 * serializer, id coercion, the ownership field and the routes' handlers.
 */
import type { Middleware } from 'koa';
import { ConfigurationError } from '../errors.js';
import { bodyReader } from '../http/body.js';
import { detectOwnerField } from '../model/ownership.js';
import type { IncludableRelation } from '../model/relations.js';
import type { WriteHooks } from '../model/write-hooks.js';
import { fieldAtPath } from '../query/field-paths.js';
import type { ListQueryOptions } from '../query/list-query.js';
import { compileSerializer, type Serializer } from '../schema/serializer.js';
import { compileWriteValidator, type WriteValidator } from '../schema/write-validator.js';
import type { AppContext, AppState, ModelClass, ModelDescription, OrmAdapter, RawRecord } from '../types.js';
import { warnCollectionsWithoutLinks } from './collections-without-links.js';
import type { ResolvedCrudOptions } from './crud-options.js';
import { warnHiddenRequired } from './hidden-required.js';

/** A relation whose target is served, with the plan of the router serving it. */
export interface ServedRelation extends IncludableRelation {
  /** The plan of the router that serves the target model (its rules apply to embedded records). */
  readonly plan: CrudPlan;
  /** The target router's own served relations. */
  nested(): readonly ServedRelation[];
}

/**
 * Where the plans of one application (or, on a plain Koa app, of one adapter) are found by model,
 * so that a relation's target is read through its own router. `version` grows with every plan
 * added, so that what was resolved against it can tell when to resolve again.
 */
export interface PlanLookup {
  /** The plan serving a model, the first one registered for it. */
  planOf(model: ModelClass): CrudPlan | undefined;
  /** Grows each time a plan is added. */
  readonly version: number;
}

/** The compiled pieces of one router. */
export interface CrudPlan {
  readonly options: ResolvedCrudOptions;
  readonly adapter: OrmAdapter;
  readonly model: ModelDescription;
  /** Where a record lives: `{prefix}/{resource}`. */
  readonly basePath: string;
  readonly serialize: Serializer;
  readonly readBody: (ctx: AppContext) => Promise<unknown>;
  /** Set from the caller on create and never written by a client. */
  readonly ownerField: string | undefined;
  /**
   * How a create learns the caller it makes the owner, when no POST policy authenticates: the
   * router's dependency, else the authentication of a policy that needs a user.
   */
  readonly ownerAuthentication: Middleware<AppState> | undefined;
  readonly readOnlyFields: ReadonlySet<string>;
  /** What list queries of this router accept beyond the defaults (`$like` caps, relations). */
  listOptions(): ListQueryOptions;
  /**
   * Validates a create or update body (with the write hooks' extra fields); an update's embedded
   * objects against the stored record they merge into.
   */
  validate(mode: 'create' | 'update', body: unknown, stored?: Readonly<RawRecord>): RawRecord;
  /** The write hooks of the router, resolved when it was created. */
  hooks(): WriteHooks | undefined;
  /** The relations requests may include, filter and sort through (resolved against the lookup). */
  relations(): readonly ServedRelation[];
  /** Every relation whose target a plan of the lookup serves, whatever `include` says (a write's keys are read under their rules). */
  writtenRelations(): readonly ServedRelation[];
}

/** Whether the router knows its callers: secured, or some policy needs a user. */
function knowsCaller(options: ResolvedCrudOptions): boolean {
  return options.secure || Object.values(options.policies).some((policy) => policy?.requiresUser === true);
}

/** Finds the ownership field: explicit option, a policy's own, or the detection rule. */
function ownerFieldOf(options: ResolvedCrudOptions, model: ModelDescription): string | undefined {
  if (options.ownerField === false) {
    // A policy deciding by an owner field would trust a field clients now write (a forged owner).
    for (const [method, policy] of Object.entries(options.policies)) {
      const field = policy?.ownerField?.(model);
      if (field !== undefined)
        throw new ConfigurationError(
          `CrudRouter for ${model.name}: owner_field: false lets clients write ${field}, which the ${method} policy (${policy?.name}) decides by; name the owner instead, or give that method another policy.`,
        );
    }
    return undefined;
  }
  if (options.ownerField !== undefined) {
    const field = model.fieldsByName.get(options.ownerField);
    if (field === undefined) {
      throw new ConfigurationError(
        `CrudRouter for ${model.name}: owner_field "${options.ownerField}" is not a field.`,
      );
    }
    // A policy deciding by another field would trust one clients write, while this one is set.
    for (const [method, policy] of Object.entries(options.policies)) {
      const decided = policy?.ownerField?.(model);
      if (decided !== undefined && decided !== field.name)
        throw new ConfigurationError(
          `CrudRouter for ${model.name}: owner_field "${field.name}" is set from the caller, but the ${method} policy (${policy?.name}) decides by "${decided}", which clients would then write; give the policy the same field (owner_or_admin(${model.name}, { field: '${field.name}' })).`,
        );
    }
    return field.name;
  }
  for (const policy of Object.values(options.policies)) {
    const name = policy?.ownerField?.(model);
    if (name !== undefined) return name;
  }
  const userModel = options.authDependency?.userModel;
  if (userModel === undefined) {
    warnUnknownOwner(options, model);
    return undefined;
  }
  return userModel === model.model ? undefined : detectOwnerField(model, userModel);
}

/** The models each dependency without a user model was warned of (`KMA_OWNER_UNKNOWN`). */
const unknownOwnerWarnings = new WeakMap<object, WeakSet<ModelClass>>();

/**
 * Warns when a router authenticates with a dependency that names no user model (one wrapped in a
 * middleware of the application's, or written by hand) on a model with many-to-one fields: no
 * field can be found to be the owner, so clients write every one of them (`created_by` too).
 */
function warnUnknownOwner(options: ResolvedCrudOptions, model: ModelDescription): void {
  const dependency = options.authDependency;
  if (dependency === undefined || options.ownerField !== undefined) return;
  const references = model.fields.filter((field) => field.relation !== undefined && field.writable);
  if (references.length === 0) return;
  // Once per dependency and model: each application or test app registering it again says nothing new.
  const warned = unknownOwnerWarnings.get(dependency) ?? new WeakSet<ModelClass>();
  unknownOwnerWarnings.set(dependency, warned);
  if (warned.has(model.model)) return;
  warned.add(model.model);
  process.emitWarning(
    `koa-model-api: CrudRouter for ${model.name}: its auth_dependency names no userModel, so none of ${model.name}'s references (${references.map((field) => field.name).join(', ')}) is set from the caller on create: clients write them all. Keep the dependency's userModel when you wrap it (Object.assign(wrapper, { userModel: dependency.userModel, securityScheme: dependency.securityScheme })), name the owner with owner_field, or say there is none with owner_field: false.`,
    { code: 'KMA_OWNER_UNKNOWN' },
  );
}

/** The authentication a create of an owned record runs (see `CrudPlan.ownerAuthentication`). */
function ownerAuthenticationOf(options: ResolvedCrudOptions): Middleware<AppState> | undefined {
  if (options.authDependency !== undefined) return options.authDependency;
  for (const policy of Object.values(options.policies))
    if (policy?.requiresUser === true && policy.authenticate !== undefined) return policy.authenticate;
  return undefined;
}

/** Checks that `like.text_fields` names readable `text` fields of the model. */
function checkLikeTextFields(options: ResolvedCrudOptions, model: ModelDescription): void {
  const fields = options.like.textFields;
  if (fields === true) return;
  for (const path of fields) {
    const field = fieldAtPath(model, path);
    if (field === undefined) {
      throw new ConfigurationError(
        `CrudRouter for ${model.name}: like.text_fields names "${path}", which is not a readable field.`,
      );
    }
    if (field.type !== 'text') {
      throw new ConfigurationError(
        `CrudRouter for ${model.name}: like.text_fields names "${path}", a ${field.type} field; only unbounded text fields need opting in.`,
      );
    }
  }
}

/** The names of the model's relations: its relation fields and its collections. */
function relationNames(model: ModelDescription): string[] {
  return [
    ...model.fields
      .filter((field) => field.relation !== undefined && !field.hidden)
      .map((field) => field.name),
    ...(model.collections ?? []).map((collection) => collection.name),
  ];
}

/** Checks that an `include` list names relations of the model. */
function checkIncludeNames(options: ResolvedCrudOptions, model: ModelDescription): void {
  if (typeof options.include === 'boolean') return;
  const names = relationNames(model);
  for (const name of options.include) {
    if (!names.includes(name)) {
      throw new ConfigurationError(
        `CrudRouter for ${model.name}: include names "${name}", which is not a relation of ${model.name}; its relations: ${names.join(', ') || 'none'}.`,
      );
    }
  }
}

/** `compute`'s value, computed again only when plans were added to the lookup since. */
function perLookupVersion<T>(lookup: PlanLookup, compute: () => T): () => T {
  let value: T | undefined;
  let at = -1;
  return () => {
    if (at !== lookup.version || value === undefined) {
      value = compute();
      at = lookup.version;
    }
    return value;
  };
}

/** The model's relations the options allow whose target model a plan of the lookup serves. */
function resolveRelations(
  options: ResolvedCrudOptions,
  adapter: OrmAdapter,
  model: ModelDescription,
  lookup: PlanLookup,
  whatever = false,
): ServedRelation[] {
  // `whatever`: every relation, whatever `include` says (the writes' own, reference-reads.ts).
  const include = whatever ? true : options.include;
  if (include === false) return [];
  const allowed = include === true ? undefined : new Set(include);
  const served: ServedRelation[] = [];
  for (const field of model.fields) {
    const targetModel = field.relation?.targetModel;
    // A variant field (another subclass's relation, on an inheritance root) is in some rows only:
    // neither embedded nor followed by a filter or sort.
    if (
      targetModel === undefined ||
      field.hidden ||
      field.variant === true ||
      (allowed !== undefined && !allowed.has(field.name))
    )
      continue;
    const plan = lookup.planOf(targetModel);
    // A target served over another adapter lives in another database: it cannot be read with this one.
    if (plan === undefined || plan.adapter !== adapter) continue;
    served.push({
      name: field.name,
      kind: 'many-to-one',
      target: plan.model,
      field,
      plan,
      nested: () => plan.relations(),
    });
  }
  // An adapter without `links` cannot embed collections: registration warned
  // (KMA_COLLECTIONS_WITHOUT_LINKS), and they are not includable.
  const collections = typeof adapter.links === 'function' ? (model.collections ?? []) : [];
  for (const collection of collections) {
    if (allowed !== undefined && !allowed.has(collection.name)) continue;
    const plan = lookup.planOf(collection.targetModel);
    if (plan === undefined || plan.adapter !== adapter) continue;
    served.push({
      name: collection.name,
      kind: collection.kind,
      target: plan.model,
      collection,
      plan,
      nested: () => plan.relations(),
    });
  }
  return served;
}

/**
 * The resource of a model as its routes' path segment: the table name, which must be one a URL
 * carries as it is (a table "Mixed Case" would give routes no client could reach).
 */
function resourceSegment(model: ModelDescription): string {
  if (!/^[A-Za-z0-9._~-]+$/.test(model.resource) || model.resource === '.' || model.resource === '..') {
    throw new ConfigurationError(
      `${model.name}: its table "${model.resource}" is the path segment of its routes, and a URL cannot carry it as it is. Name the table with letters, digits and "-", "_", "." or "~" (MikroORM's tableName, or __tablename__).`,
    );
  }
  return model.resource;
}

/**
 * Every route addresses a record by its key (`/{id}`, `Location`, cursors, relation values): a
 * hidden key would be shown there all the same.
 */
function checkVisibleKey(model: ModelDescription): void {
  if (model.fieldsByName.get(model.primaryKey)?.hidden !== true) return;
  throw new ConfigurationError(
    `${model.name}: its primary key ${model.primaryKey} is hidden, but its routes address records by it (paths, Location, cursors), so clients would see it anyway. Remove \`hidden\` from the key.`,
  );
}

/** Compiles a router's plan for an adapter; throws `ConfigurationError` for what cannot be served. */
export function compileCrudPlan(
  options: ResolvedCrudOptions,
  adapter: OrmAdapter,
  bodyLimit: number,
  lookup: PlanLookup,
): CrudPlan {
  const model = adapter.describe(options.model);
  checkVisibleKey(model);
  checkLikeTextFields(options, model);
  checkIncludeNames(options, model);
  const resolved = perLookupVersion(lookup, () => {
    const relations = resolveRelations(options, adapter, model, lookup);
    return { relations, listOptions: { like: options.like, relations } as ListQueryOptions };
  });
  const writtenRelations = perLookupVersion(lookup, () =>
    resolveRelations(options, adapter, model, lookup, true),
  );
  const ownerField = knowsCaller(options) ? ownerFieldOf(options, model) : undefined;
  const readOnlyFields: ReadonlySet<string> = new Set(ownerField === undefined ? [] : [ownerField]);
  const hooks = options.writeHooks;
  warnHiddenRequired(model, { writeHooks: hooks !== undefined, ownerField });
  warnCollectionsWithoutLinks(adapter, model);
  const compile = (mode: 'create' | 'update'): WriteValidator =>
    compileWriteValidator(model, {
      mode,
      strict: options.strict,
      readOnlyFields,
      ...(hooks === undefined
        ? {}
        : {
            extraFields: hooks.extraFields,
            extraRequired: mode === 'create' ? hooks.requiredOnCreate : [],
          }),
    });
  // Compiled once: the hooks are an input of the router, fixed when it was created.
  const validators = { create: compile('create'), update: compile('update') };

  return {
    options,
    adapter,
    model,
    basePath: `${options.prefix}/${resourceSegment(model)}`,
    serialize: compileSerializer(model),
    readBody: bodyReader({ limit: bodyLimit }),
    ownerField,
    ownerAuthentication: ownerField === undefined ? undefined : ownerAuthenticationOf(options),
    readOnlyFields,
    listOptions: () => resolved().listOptions,
    validate: (mode, body, stored) => validators[mode](body, stored),
    hooks: () => hooks,
    relations: () => resolved().relations,
    writtenRelations,
  };
}
