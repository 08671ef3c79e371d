/**
 * The OpenAPI path items of one `CrudRouter`: list and create on `/{resource}`, read, update,
 * patch and delete on `/{resource}/{id}`, each with the security and error responses it really has.
 */
import { filterablePaths, selectableFields, sortableFields } from '../query/field-paths.js';
import type { JsonSchema } from '../schema/json-schema.js';
import { createSchema, fieldValueSchema, readSchema, updateSchema } from '../schema/model-schemas.js';
import type { CrudMethod, ModelDescription, Policy } from '../types.js';
import {
  AFTER_PARAMETER,
  COUNT_PARAMETER,
  headerRef,
  JSON_MEDIA_TYPE,
  type ProblemResponseName,
  parameterRef,
  problemResponses,
  schemaRef,
} from './components.js';
import { article, humanize, pascalCase } from './naming.js';
import type { CrudRoutesDoc } from './types.js';

/** What the document builder lends to this file: shared names for schemas, ids and schemes. */
export interface CrudBuildContext {
  /** Adds a schema to `components.schemas` under `name` (or a free variant of it); returns its `$ref`. */
  schema(name: string, schema: JsonSchema): JsonSchema;
  /** A unique operationId, `preferred` when free. */
  operationId(preferred: string): string;
  /** The security scheme an operation that needs a user names. */
  securityScheme(doc: CrudRoutesDoc, policy: Policy | undefined): string;
}

/** An OpenAPI operation object. */
type Operation = Record<string, unknown>;
/** An OpenAPI path item object. */
type PathItem = Record<string, unknown>;

/** `/api/` → `/api`; `api` → `/api`; `` and `/` → `` (so paths never get a double slash). */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The collection path of a router: `{prefix}/{resource}`. */
export function collectionPath(doc: CrudRoutesDoc): string {
  return `${normalizePrefix(doc.prefix)}/${doc.description.resource}`;
}

/** The record path of a router: `{prefix}/{resource}/{id}`. */
export function itemPath(doc: CrudRoutesDoc): string {
  return `${collectionPath(doc)}/{id}`;
}

/** The `fields` parameter's description; lazy fields are named, as only a selection brings them. */
function fieldsDescription(model: ModelDescription): string {
  const base = 'Comma-separated top-level fields to return; records then carry only these fields.';
  const lazy = model.fields
    .filter((field) => field.lazy === true && !field.hidden)
    .map((field) => `\`${field.name}\``);
  if (lazy.length === 0) return base;
  return `${base} Lazy fields (${lazy.join(', ')}) are left out of every record unless named here.`;
}

/** The `sort`, `fields` and `filter` parameters of a list, naming the fields each accepts. */
function listParameters(model: ModelDescription, filterRef: JsonSchema): Record<string, unknown>[] {
  const sortKeys = sortableFields(model).flatMap((name) => [name, `-${name}`]);
  return [
    parameterRef('Limit'),
    parameterRef('Offset'),
    structuredClone(AFTER_PARAMETER),
    structuredClone(COUNT_PARAMETER),
    {
      name: 'sort',
      in: 'query',
      description:
        'Comma-separated sort keys, e.g. `-age,username`; a leading `-` sorts descending. Top-level fields only.',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: sortKeys }, uniqueItems: true },
    },
    {
      name: 'fields',
      in: 'query',
      description: fieldsDescription(model),
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: selectableFields(model) }, uniqueItems: true },
    },
    {
      name: 'filter',
      in: 'query',
      description:
        '`filter[field]=value` keeps records whose field equals the value; ' +
        '`filter[field][$op]=value` applies an operator (`$eq $ne $gt $gte $lt $lte $in $nin $like $ilike $exists`). ' +
        '`$in`/`$nin` take a comma-separated list, `$exists` `true` or `false`. ' +
        '`$like` takes a case-sensitive pattern: `%` any run of characters, `_` one character, a backslash makes the next ' +
        'character literal (`\\%`, `\\_`, `\\\\`); `$ilike` is the same ignoring case. A pattern has at most 100 characters and ' +
        '4 wildcards unless the API raises the caps, and unbounded text fields take patterns only where the API allows it. ' +
        'A field of an embedded object is named by its dotted path, e.g. `filter[address.city]=Oslo`. ' +
        'Conditions on several fields must all hold.',
      style: 'deepObject',
      explode: true,
      schema: filterRef,
      // Without it Swagger UI pre-fills every field with "string" and "Try it out" filters on all of them.
      example: {},
    },
  ];
}

/** The schema of the `filter` parameter: each filterable path, as a value or an operator object. */
function filterSchema(model: ModelDescription): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const path of filterablePaths(model)) {
    properties[path] = { anyOf: [{ type: 'string' }, schemaRef('FilterOperators')] };
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** The `{id}` path parameter, typed like the primary key. */
function idParameter(model: ModelDescription): Record<string, unknown> {
  const key = model.fieldsByName.get(model.primaryKey);
  const {
    default: _ignored,
    description: _described,
    ...schema
  } = key === undefined ? {} : fieldValueSchema(key);
  // A path segment is never null: keep the key's own type only.
  if (Array.isArray(schema.type)) schema.type = schema.type.find((type) => type !== 'null') ?? 'string';
  return {
    name: 'id',
    in: 'path',
    required: true,
    description: `Primary key (\`${model.primaryKey}\`) of the ${humanize(model.name)}.`,
    schema,
  };
}

/** Security, 401/403 responses and a description sentence for one method of a router. */
function access(
  doc: CrudRoutesDoc,
  method: CrudMethod,
  ctx: CrudBuildContext,
): { security?: Record<string, string[]>[]; errors: ProblemResponseName[]; notes: string[] } {
  const policy = doc.policies[method];
  const needsUser = doc.secure || policy?.requiresUser === true;
  const errors: ProblemResponseName[] = [];
  const notes: string[] = [];
  if (needsUser) {
    errors.push('Unauthorized');
    notes.push('Requires a bearer token.');
  }
  if (policy !== undefined) {
    errors.push('Forbidden');
    notes.push(`Access (${policy.name}): ${policy.description}`);
  }
  if (!needsUser) return { errors, notes };
  return { security: [{ [ctx.securityScheme(doc, policy)]: [] }], errors, notes };
}

/** Builds one operation; every CRUD operation reads or writes the database, hence 503. */
function operation(
  doc: CrudRoutesDoc,
  method: CrudMethod,
  ctx: CrudBuildContext,
  spec: {
    operationId: string;
    summary: string;
    description: string;
    success: Record<string, unknown>;
    errors: ProblemResponseName[];
    parameters?: Record<string, unknown>[];
    requestBody?: Record<string, unknown>;
  },
): Operation {
  const rules = access(doc, method, ctx);
  return {
    tags: [doc.description.resource],
    summary: spec.summary,
    description: [spec.description, ...rules.notes].join('\n\n'),
    operationId: ctx.operationId(spec.operationId),
    ...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
    ...(spec.requestBody === undefined ? {} : { requestBody: spec.requestBody }),
    responses: {
      ...spec.success,
      ...problemResponses([...spec.errors, ...rules.errors, 'ServiceUnavailable']),
    },
    ...(rules.security === undefined ? {} : { security: rules.security }),
  };
}

/** A JSON request body of the given schema. */
function jsonBody(schema: JsonSchema, description: string): Record<string, unknown> {
  return { required: true, description, content: { [JSON_MEDIA_TYPE]: { schema } } };
}

/** The path items of one router, keyed by path. */
export function crudPathItems(doc: CrudRoutesDoc, ctx: CrudBuildContext): Record<string, PathItem> {
  const model = doc.description;
  const writeOptions = {
    readOnlyFields: doc.readOnlyFields,
    extraFields: doc.extraInputFields,
    extraRequired: doc.extraRequiredOnCreate,
  };
  const record = ctx.schema(model.name, readSchema(model));
  const create = ctx.schema(`${model.name}Create`, createSchema(model, writeOptions));
  const update = ctx.schema(`${model.name}Update`, updateSchema(model, writeOptions));
  const filter = ctx.schema(`${model.name}Filter`, filterSchema(model));
  // With `fields=` a list returns only the named fields, so no field is required in list items.
  const { required: _required, ...partial } = readSchema(model);
  const listItem = ctx.schema(`${model.name}Fields`, {
    ...partial,
    description: `A ${model.name}, or the fields of it named in \`fields\`.`,
  });

  const one = humanize(model.name);
  const many = humanize(model.resource);
  const single = pascalCase(model.name);
  const plural = pascalCase(model.resource);
  const a = `${article(one)} ${one}`;
  const dropped = doc.strict
    ? 'Fields a client may not write are refused with 422.'
    : 'Fields a client may not write are ignored.';
  const recordResponse = (description: string) => ({
    description,
    content: { [JSON_MEDIA_TYPE]: { schema: record } },
  });
  const writeErrors: ProblemResponseName[] = [
    'BadRequest',
    'Conflict',
    'PayloadTooLarge',
    'UnsupportedMediaType',
    'ValidationFailed',
  ];
  const updateDescription = `Changes the fields present in the body; absent fields keep their values. ${dropped}`;

  return {
    [collectionPath(doc)]: {
      get: operation(doc, 'GET', ctx, {
        operationId: `list${plural}`,
        summary: `List ${many}`,
        description:
          `Returns one page of ${many}. \`X-Total-Count\` gives the number of matches (skipped with \`count=false\`); ` +
          '`Link` gives the next and previous pages when there are such pages; with `after` it pages by keyset.',
        parameters: listParameters(model, filter),
        success: {
          200: {
            description: `A page of ${many}.`,
            headers: { 'X-Total-Count': headerRef('XTotalCount'), Link: headerRef('Link') },
            content: { [JSON_MEDIA_TYPE]: { schema: { type: 'array', items: listItem } } },
          },
        },
        errors: ['BadRequest'],
      }),
      post: operation(doc, 'POST', ctx, {
        operationId: `create${single}`,
        summary: `Create ${a}`,
        description: `Stores a new ${one} and returns it. ${dropped}`,
        requestBody: jsonBody(create, `The new ${one}.`),
        success: {
          201: { ...recordResponse(`The created ${one}.`), headers: { Location: headerRef('Location') } },
        },
        errors: writeErrors,
      }),
    },
    [itemPath(doc)]: {
      parameters: [idParameter(model)],
      get: operation(doc, 'GET', ctx, {
        operationId: `get${single}`,
        summary: `Get ${a}`,
        description: `Returns the ${one} with this primary key.`,
        success: { 200: recordResponse(`The ${one}.`) },
        errors: ['NotFound'],
      }),
      put: operation(doc, 'PUT', ctx, {
        operationId: `update${single}`,
        summary: `Update ${a}`,
        description: updateDescription,
        requestBody: jsonBody(update, 'The fields to change.'),
        success: { 200: recordResponse(`The updated ${one}.`) },
        errors: [...writeErrors, 'NotFound'],
      }),
      patch: operation(doc, 'PATCH', ctx, {
        operationId: `patch${single}`,
        summary: `Partially update ${a}`,
        description: `${updateDescription} Same as PUT.`,
        requestBody: jsonBody(update, 'The fields to change.'),
        success: { 200: recordResponse(`The updated ${one}.`) },
        errors: [...writeErrors, 'NotFound'],
      }),
      delete: operation(doc, 'DELETE', ctx, {
        operationId: `delete${single}`,
        summary: `Delete ${a}`,
        description: `Deletes the ${one} with this primary key; 409 while other records still reference it.`,
        success: { 204: { description: 'Deleted.' } },
        errors: ['NotFound', 'Conflict'],
      }),
    },
  };
}
