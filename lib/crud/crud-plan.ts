/**
 * Everything a `CrudRouter` derives from the model description, compiled once: validators,
 * serializer, id coercion, the ownership field and the routes' handlers.
 */
import { ConfigurationError } from '../errors.js';
import { bodyReader } from '../http/body.js';
import { detectOwnerField } from '../model/ownership.js';
import { type WriteHooks, writeHooksOf } from '../model/write-hooks.js';
import { fieldAtPath } from '../query/field-paths.js';
import type { ListQueryOptions } from '../query/list-query.js';
import { compileSerializer, type Serializer } from '../schema/serializer.js';
import { compileWriteValidator } from '../schema/write-validator.js';
import type { AppContext, ModelDescription, OrmAdapter, RawRecord } from '../types.js';
import type { ResolvedCrudOptions } from './crud-options.js';

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
  readonly readOnlyFields: ReadonlySet<string>;
  /** What list queries of this router accept beyond the defaults (`$like` caps and opt-ins). */
  readonly listOptions: ListQueryOptions;
  /** Validates a create or update body against the current write hooks. */
  validate(mode: 'create' | 'update', body: unknown): RawRecord;
  /** The write hooks of the model at this moment (plugins may attach them after registration). */
  hooks(): WriteHooks | undefined;
}

/** Whether the router knows its callers: secured, or some policy needs a user. */
function knowsCaller(options: ResolvedCrudOptions): boolean {
  return options.secure || Object.values(options.policies).some((policy) => policy?.requiresUser === true);
}

/** Finds the ownership field: explicit option, a policy's own, or the detection rule. */
function ownerFieldOf(options: ResolvedCrudOptions, model: ModelDescription): string | undefined {
  if (options.ownerField !== undefined) {
    const field = model.fieldsByName.get(options.ownerField);
    if (field === undefined) {
      throw new ConfigurationError(
        `CrudRouter for ${model.name}: owner_field "${options.ownerField}" is not a field.`,
      );
    }
    return field.name;
  }
  for (const policy of Object.values(options.policies)) {
    const name = policy?.ownerField?.(model);
    if (name !== undefined) return name;
  }
  const userModel = options.authDependency?.userModel;
  return userModel === undefined || userModel === model.model
    ? undefined
    : detectOwnerField(model, userModel);
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

/** Compiles a router's plan for an adapter; throws `ConfigurationError` for what cannot be served. */
export function compileCrudPlan(
  options: ResolvedCrudOptions,
  adapter: OrmAdapter,
  bodyLimit: number,
): CrudPlan {
  const model = adapter.describe(options.model);
  checkLikeTextFields(options, model);
  const ownerField = knowsCaller(options) ? ownerFieldOf(options, model) : undefined;
  const readOnlyFields: ReadonlySet<string> = new Set(ownerField === undefined ? [] : [ownerField]);
  const compiled = new Map<string, (body: unknown) => RawRecord>();
  let compiledFor: WriteHooks | undefined;

  const validatorFor = (mode: 'create' | 'update'): ((body: unknown) => RawRecord) => {
    const hooks = writeHooksOf(options.model);
    if (hooks !== compiledFor) {
      compiled.clear();
      compiledFor = hooks;
    }
    let validator = compiled.get(mode);
    if (validator === undefined) {
      validator = compileWriteValidator(model, {
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
      compiled.set(mode, validator);
    }
    return validator;
  };
  validatorFor('create');
  validatorFor('update');

  return {
    options,
    adapter,
    model,
    basePath: `${options.prefix}/${model.resource}`,
    serialize: compileSerializer(model),
    readBody: bodyReader({ limit: bodyLimit }),
    ownerField,
    readOnlyFields,
    listOptions: { like: options.like },
    validate: (mode, body) => validatorFor(mode)(body),
    hooks: () => writeHooksOf(options.model),
  };
}
