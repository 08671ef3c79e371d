/**
 * The OpenAPI path items of one `CrudRouter`: list and create on `/{resource}`, read, update,
 * patch and delete on `/{resource}/{id}`, each with the security and error responses it really has.
 */

import type { CrudOperationName, OperationCheck, OperationDeclaration } from '../http/operation.js';
import {
  fieldAtPath,
  filterablePaths,
  isJsonKey,
  selectableFields,
  sortableFields,
} from '../query/field-paths.js';
import {
  LIKE_LIMITS,
  LIST_LIMITS,
  type LikeLimits,
  ORDERED_TYPES,
  takesPatterns,
} from '../query/list-query.js';
import type { JsonSchema } from '../schema/json-schema.js';
import { createSchema, fieldValueSchema, readSchema, updateSchema } from '../schema/model-schemas.js';
import type {
  CrudMethod,
  FieldDescription,
  FilterOperator,
  ModelClass,
  ModelDescription,
  Policy,
} from '../types.js';
import {
  AFTER_PARAMETER,
  COUNT_PARAMETER,
  headerRef,
  JSON_MEDIA_TYPE,
  type ProblemResponseName,
  parameterRef,
  problemResponses,
} from './components.js';
import { documentedWriteSchema } from './lenient-schema.js';
import { article, humanize, pascalCase } from './naming.js';
import {
  type DocumentedRelation,
  documentedRelations,
  type EmbeddedShape,
  includeParameter,
  type RelationAccess,
  type RelationTarget,
  relationAccess,
  relationFieldNames,
  relationFilterPaths,
  relationSortKeys,
  withRelationProperties,
} from './relations.js';
import type { CrudRoutesDoc } from './types.js';

/** What the document builder lends to this file: shared names for schemas, ids and schemes. */
export interface CrudBuildContext {
  /** Adds a schema to `components.schemas` under `name` (or a free variant of it); returns its `$ref`. */
  schema(name: string, schema: JsonSchema): JsonSchema;
  /** A unique operationId, `preferred` when free. */
  operationId(preferred: string): string;
  /** The security scheme an operation that needs a user names. */
  securityScheme(doc: CrudRoutesDoc, policy: Policy | undefined): string;
  /**
   * Adds a router's read schema of one shape (a whole record, or one a field selection may have
   * narrowed) like `schema`, remembered as what relations to its model refer to.
   */
  record(doc: CrudRoutesDoc, schema: JsonSchema, shape?: EmbeddedShape): JsonSchema;
  /** The documented routes of a related model and a `$ref` to their read schema, if it has routes. */
  target(model: ModelClass): RelationTarget | undefined;
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
function fieldsDescription(model: ModelDescription, relations: boolean): string {
  const base = 'Comma-separated top-level fields to return; records then carry only these fields.';
  const lazy = model.fields
    .filter((field) => field.lazy === true && !field.hidden)
    .map((field) => `\`${field.name}\``);
  const related = relations
    ? ' A dotted name (`relation.field`, `relation.nested.field`) selects fields of a relation named in ' +
      '`include` (400 otherwise); an included relation appears whatever the selection says.'
    : '';
  if (lazy.length === 0) return base + related;
  return `${base} Lazy fields (${lazy.join(', ')}) are left out of every record unless named here.${related}`;
}

/** The `fields` parameter of list and read operations: readable fields, and fields of included relations. */
function fieldsParameter(
  model: ModelDescription,
  relations: readonly DocumentedRelation[],
): Record<string, unknown> {
  return {
    name: 'fields',
    in: 'query',
    description: `${fieldsDescription(model, relations.length > 0)} Repeating the parameter is the same as one comma-separated list.`,
    style: 'form',
    explode: false,
    schema: {
      type: 'array',
      items: { type: 'string', enum: [...selectableFields(model), ...relationFieldNames(relations)] },
      uniqueItems: true,
    },
  };
}

/**
 * The `sort`, `fields` and `filter[…]` parameters of a list, naming the fields each accepts. They
 * are shaped so that a client generated with default settings can send every one of them: lists
 * may be comma-separated or repeated (openapi-fetch repeats array values by default), and each
 * filterable field is its own one-level `deepObject` parameter (`filter[title]` with operator keys),
 * as generic query serializers refuse nested objects.
 */
function listParameters(
  doc: CrudRoutesDoc,
  relations: readonly DocumentedRelation[],
): Record<string, unknown>[] {
  const model = doc.description;
  const like = doc.like ?? LIKE_LIMITS;
  const related = relationSortKeys(relations);
  const sortKeys = [...sortableFields(model), ...related].flatMap((name) => [name, `-${name}`]);
  const include = includeParameter(relations, doc.includeLimit);
  const after = structuredClone(AFTER_PARAMETER) as Record<string, unknown>;
  if (related.length > 0) {
    after.description = `${after.description} Nor when a sort key goes through a relation (\`${related[0]}\`).`;
  }
  const customOrder = model.fields.filter((field) => field.customOrder === true && !field.hidden);
  if (customOrder.length > 0) {
    const names = customOrder.map((field) => `\`${field.name}\``).join(', ');
    after.description = `${after.description} Nor when a sort key is sorted in a custom order of its values (${names}): page such sorts with \`offset\`.`;
  }
  return [
    parameterRef('Limit'),
    parameterRef('Offset'),
    after,
    structuredClone(COUNT_PARAMETER),
    ...(include === undefined ? [] : [include]),
    {
      name: 'sort',
      in: 'query',
      description:
        'Comma-separated sort keys, e.g. `-age,username`; a leading `-` sorts descending. ' +
        (related.length === 0
          ? 'Top-level fields only. '
          : `Top-level fields, or a field of a many-to-one relation (\`${related[0]}\`; records without one ` +
            'sort where the database puts NULL). ') +
        'Repeating the parameter (`sort=-age&sort=username`) is the same as one comma-separated list.' +
        defaultOrderSentence(model),
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: sortKeys }, uniqueItems: true },
    },
    fieldsParameter(model, relations),
    ...filterablePaths(model).flatMap((path) => {
      const field = fieldAtPath(model, path);
      // A field the database answers no filter on correctly has no parameter to offer.
      if (field === undefined || field.filterLimit?.operators.length === 0) return [];
      return [filterParameter(path, field, like)];
    }),
    ...relationFilterPaths(relations).map(({ path, field, relation }) =>
      relationFilterParameter(path, field, relation, like),
    ),
  ];
}

/** What a list is sorted by after the request's keys, when the model has a default order; else nothing. */
function defaultOrderSentence(model: ModelDescription): string {
  const order = model.defaultOrder ?? [];
  if (order.length === 0) return '';
  // A hidden field is named nowhere in the document, and a related model's fields are its own to show.
  const keys = order.map((key) => {
    const nulls = key.nulls === undefined ? '' : ` (nulls ${key.nulls})`;
    const direction = key.direction === 'desc' ? 'descending' : 'ascending';
    if (fieldAtPath(model, key.field) !== undefined)
      return `\`${key.direction === 'desc' ? '-' : ''}${key.field}\`${nulls}`;
    const head = model.fieldsByName.get(key.field.split('.')[0] as string);
    return head?.relation !== undefined && !head.hidden
      ? `a field of the related \`${head.name}\` (${direction}${nulls})`
      : `a field it does not show (${direction}${nulls})`;
  });
  return (
    ` After these keys (and without \`sort\`), records come in the model's default order, ${keys.join(', ')}` +
    ` (a key some \`sort\` key starts with is left out), then by \`${model.primaryKey}\`.`
  );
}

/** The schema of one operand of a filter on `field`, as a query parameter carries it (no null). */
function operandSchema(field: FieldDescription): JsonSchema {
  const { default: _default, description: _description, ...schema } = fieldValueSchema(field);
  if (Array.isArray(schema.type)) schema.type = schema.type.find((type) => type !== 'null') ?? 'string';
  if (schema.enum !== undefined) schema.enum = schema.enum.filter((value) => value !== null);
  // A filter may compare with longer text than the column holds (it then matches nothing); the
  // parser's own cap is four times the column's length.
  if (field.maxLength !== undefined && schema.maxLength !== undefined) schema.maxLength = field.maxLength * 4;
  // A datetime filter also takes a day alone, as its UTC midnight (coerce.ts).
  if (field.type === 'datetime') {
    const { format: _format, ...rest } = schema;
    return { ...rest, anyOf: [{ format: 'date-time' }, { format: 'date' }] };
  }
  return schema;
}

/**
 * The `filter[path]` parameter of one filterable field: an object of the operators the server
 * accepts for the field's type, each typed like the field (lists as comma-separated text).
 */
function filterParameter(path: string, field: FieldDescription, like: LikeLimits): Record<string, unknown> {
  // A key of a custom type is compared with the text given, as its `{id}` path takes it.
  const operand: JsonSchema = isJsonKey(field) ? { type: 'string' } : operandSchema(field);
  const properties: Record<string, JsonSchema> = {};
  const list = (description: string): JsonSchema => ({ type: 'string', description });
  if (field.type !== 'json' || isJsonKey(field)) {
    properties.$eq = { ...operand, description: `Equal (\`filter[${path}]=value\` is the same).` };
    properties.$ne = { ...operand, description: 'Not equal.' };
    if (ORDERED_TYPES.has(field.type)) {
      properties.$gt = { ...operand, description: 'Greater than.' };
      properties.$gte = { ...operand, description: 'Greater than or equal.' };
      properties.$lt = { ...operand, description: 'Less than.' };
      properties.$lte = { ...operand, description: 'Less than or equal.' };
    }
    properties.$in = list(`One of a comma-separated list (at most ${LIST_LIMITS.maxInItems} values).`);
    properties.$nin = list(`None of a comma-separated list (at most ${LIST_LIMITS.maxInItems} values).`);
    // An unbounded text field takes patterns only where the router opted it in (list-query.ts).
    const patterns = field.type !== 'text' || like.textFields === true || like.textFields.has(path);
    if (takesPatterns(field) && patterns) {
      properties.$like = {
        type: 'string',
        description:
          'Case-sensitive pattern: `%` any run of characters, `_` one character, a backslash makes the next ' +
          `character literal (\`\\%\`, \`\\_\`, \`\\\\\`). At most ${like.maxLength} characters and ` +
          `${like.maxWildcards} wildcards.`,
      };
      properties.$ilike = { type: 'string', description: 'Like `$like`, ignoring case.' };
    }
  }
  properties.$exists = { type: 'boolean', description: 'Whether the field is set (not null).' };
  // Operators the database would answer wrongly for this field are refused, so not offered.
  const limit = field.filterLimit;
  if (limit !== undefined)
    for (const op of Object.keys(properties))
      if (!limit.operators.includes(op as FilterOperator)) delete properties[op];
  const limited =
    limit === undefined
      ? ''
      : ` Only these operators${limit.values === undefined || limit.values.length === 0 ? '' : `, and no value of ${limit.values.map((value) => JSON.stringify(value)).join(', ')}`}: ${limit.reason}.`;
  return {
    name: `filter[${path}]`,
    in: 'query',
    description:
      `Keeps records whose \`${path}\` passes every operator given: \`filter[${path}][$op]=value\`` +
      // A JSON field takes $exists alone: the bare form would be a 400 there.
      `${properties.$eq === undefined ? '' : `; \`filter[${path}]=value\` is short for \`$eq\``}. ` +
      `Conditions on several fields must all hold.${limited}`,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', properties, additionalProperties: false },
    // Without it Swagger UI pre-fills every operator with a sample value and "Try it out" sends them all.
    example: {},
  };
}

/**
 * The `filter[rel.field]` parameter of a field of a many-to-one target: the field's operators but
 * `$exists` (a relation path tests the related record's value, and only an existing one).
 */
function relationFilterParameter(
  path: string,
  field: FieldDescription,
  relation: string,
  like: LikeLimits,
): Record<string, unknown> {
  const parameter = filterParameter(path, field, like);
  const schema = parameter.schema as JsonSchema;
  const { $exists: _exists, ...properties } = schema.properties ?? {};
  return {
    ...parameter,
    description:
      `Keeps records whose related \`${relation}\` has a \`${field.name}\` that passes every operator given: ` +
      `\`filter[${path}][$op]=value\`; \`filter[${path}]=value\` is short for \`$eq\`. Records whose \`${relation}\` is null never ` +
      'match. Conditions on several fields must all hold.',
    schema: { ...schema, properties },
  };
}

/** The `{id}` path parameter, typed like the primary key. */
function idParameter(model: ModelDescription): Record<string, unknown> {
  const key = model.fieldsByName.get(model.primaryKey);
  const {
    default: _ignored,
    description: _described,
    ...schema
  } = key === undefined ? {} : fieldValueSchema(key);
  // A path segment is never null: keep the key's own type only; a custom type's key is its text.
  if (key?.type === 'json') schema.type = 'string';
  else if (Array.isArray(schema.type)) schema.type = schema.type.find((type) => type !== 'null') ?? 'string';
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
  const owned = method === 'POST' && doc.ownerField !== undefined;
  const needsUser = doc.secure || policy?.requiresUser === true || owned;
  const errors: ProblemResponseName[] = [];
  const notes: string[] = [];
  if (needsUser) {
    errors.push('Unauthorized');
    notes.push('Requires a bearer token.');
  }
  if (owned) notes.push(`The caller becomes the record's \`${doc.ownerField}\`.`);
  if (policy !== undefined) {
    errors.push('Forbidden');
    notes.push(`Access (${policy.name}): ${policy.description}`);
  }
  if (method === 'DELETE' && doc.deleteRule !== undefined) {
    if (!errors.includes('Forbidden')) errors.push('Forbidden');
    notes.push(doc.deleteRule);
  }
  if (!needsUser) return { errors, notes };
  return { security: [{ [ctx.securityScheme(doc, authenticating(doc, policy, owned))]: [] }], errors, notes };
}

/**
 * The policy whose authentication an operation runs, for its scheme. A create of an owned record
 * with no POST policy that authenticates runs the router's dependency, else the authentication of
 * a policy that needs a user (`ownerAuthenticationOf`, crud-plan.ts).
 */
function authenticating(doc: CrudRoutesDoc, policy: Policy | undefined, owned: boolean): Policy | undefined {
  if (
    !owned ||
    policy?.authenticate !== undefined ||
    doc.authenticates === true ||
    doc.securityScheme !== undefined
  )
    return policy;
  return Object.values(doc.policies).find(
    (other) => other?.requiresUser === true && other.authenticate !== undefined,
  );
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
    related?: RelationAccess;
  },
): Operation {
  const rules = access(doc, method, ctx);
  const related = spec.related ?? { errors: [], notes: [], schemes: [] };
  // A public operation whose relations need a user takes a token optionally: `{}` is "none".
  const security =
    rules.security ??
    (related.schemes.length === 0 ? undefined : [{}, ...related.schemes.map((name) => ({ [name]: [] }))]);
  return {
    tags: [doc.description.resource],
    summary: spec.summary,
    description: [spec.description, ...rules.notes, ...related.notes].join('\n\n'),
    operationId: ctx.operationId(spec.operationId),
    ...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
    ...(spec.requestBody === undefined ? {} : { requestBody: spec.requestBody }),
    responses: {
      ...spec.success,
      ...problemResponses([...spec.errors, ...rules.errors, ...related.errors, 'ServiceUnavailable']),
    },
    ...(security === undefined ? {} : { security }),
  };
}

/** A write schema with the plugins' extra rules merged into the properties it has. */
function withFieldRules(schema: JsonSchema, rules: CrudRoutesDoc['fieldRules']): JsonSchema {
  if (rules === undefined || schema.properties === undefined) return schema;
  const properties = { ...schema.properties };
  for (const [name, rule] of Object.entries(rules)) {
    const current = properties[name];
    if (current !== undefined) properties[name] = { ...current, ...structuredClone(rule) };
  }
  return { ...schema, properties };
}

/** A JSON request body of the given schema. */
function jsonBody(schema: JsonSchema, description: string): Record<string, unknown> {
  return { required: true, description, content: { [JSON_MEDIA_TYPE]: { schema } } };
}

/** The words of one operation; everything else comes from its declaration. */
interface OperationText {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  /** What the request body holds, for operations that read one. */
  readonly body?: string;
  readonly success: string;
}

/**
 * The error responses of an operation's checks (401 and 403 come from the router's security and
 * policies, see `access`): a query can be refused with 400, a record be missing (404), a body be
 * malformed, too large, of another type or invalid, a write meet a constraint (409).
 */
function checkErrors(checks: readonly OperationCheck[]): ProblemResponseName[] {
  const errors: ProblemResponseName[] = [];
  if (checks.includes('query') || checks.includes('body')) errors.push('BadRequest');
  if (checks.includes('store')) errors.push('Conflict');
  if (checks.includes('record')) errors.push('NotFound');
  if (checks.includes('body')) errors.push('PayloadTooLarge', 'UnsupportedMediaType', 'ValidationFailed');
  return errors;
}

/** The path items of one router, keyed by path. */
export function crudPathItems(doc: CrudRoutesDoc, ctx: CrudBuildContext): Record<string, PathItem> {
  const model = doc.description;
  const writeOptions = {
    readOnlyFields: doc.readOnlyFields,
    extraFields: doc.extraInputFields,
    extraRequired: doc.extraRequiredOnCreate,
  };
  const relations = documentedRelations(doc, (target) => ctx.target(target));
  const read = readSchema(model);
  const record = ctx.record(doc, withRelationProperties(read, relations, doc.includeLimit));
  // Non-strict routers drop the fields a client may not write, so their bodies allow unknown keys.
  // Registered when an operation takes the body: a read-only model has no write schemas.
  const writeSchema = (kind: 'create' | 'update') =>
    kind === 'create'
      ? ctx.schema(
          `${model.name}Create`,
          documentedWriteSchema(
            withFieldRules(createSchema(model, writeOptions), doc.fieldRules),
            doc.strict,
          ),
        )
      : ctx.schema(
          `${model.name}Update`,
          documentedWriteSchema(
            withFieldRules(updateSchema(model, writeOptions), doc.fieldRules),
            doc.strict,
          ),
        );
  // With `fields=` a list or a read returns only the named fields, of the record and of the
  // records it embeds (`fields=owner.username`): no field is required, at any level.
  const { required: _required, ...partial } = read;
  const selected = ctx.record(
    doc,
    {
      ...withRelationProperties(partial, relations, doc.includeLimit, 'fields'),
      description: `A ${model.name}, or the fields of it named in \`fields\`.`,
    },
    'fields',
  );

  const one = humanize(model.name);
  const many = humanize(model.resource);
  const single = pascalCase(model.name);
  const plural = pascalCase(model.resource);
  const a = `${article(one)} ${one}`;
  const dropped = doc.strict
    ? 'Fields a client may not write are refused with 422.'
    : 'Fields a client may not write are ignored.';
  const recordResponse = (description: string, schema: JsonSchema) => ({
    description,
    content: { [JSON_MEDIA_TYPE]: { schema } },
  });
  const readInclude = includeParameter(relations, doc.includeLimit);
  const readParameters = [
    ...(readInclude === undefined ? [] : [readInclude]),
    fieldsParameter(model, relations),
  ];
  const updateDescription = `Changes the fields present in the body; absent fields keep their values. ${dropped}`;
  const texts: Record<CrudOperationName, OperationText> = {
    list: {
      operationId: `list${plural}`,
      summary: `List ${many}`,
      description:
        `Returns one page of ${many}. \`X-Total-Count\` gives the number of matches (skipped with \`count=false\`); ` +
        '`Link` gives the next and previous pages when there are such pages; with `after` it pages by keyset.',
      success: `A page of ${many}.`,
    },
    create: {
      operationId: `create${single}`,
      summary: `Create ${a}`,
      description: `Stores a new ${one} and returns it. ${dropped}`,
      body: `The new ${one}.`,
      success: `The created ${one}.`,
    },
    read: {
      operationId: `get${single}`,
      summary: `Get ${a}`,
      description: `Returns the ${one} with this primary key; with \`fields\`, only the fields it names.`,
      success: `The ${one}, or the fields of it named in \`fields\`.`,
    },
    update: {
      operationId: `update${single}`,
      summary: `Update ${a}`,
      description: updateDescription,
      body: 'The fields to change.',
      success: `The updated ${one}.`,
    },
    patch: {
      operationId: `patch${single}`,
      summary: `Partially update ${a}`,
      description: `${updateDescription} Same as PUT.`,
      body: 'The fields to change.',
      success: `The updated ${one}.`,
    },
    delete: {
      operationId: `delete${single}`,
      summary: `Delete ${a}`,
      description: `Deletes the ${one} with this primary key; 409 while other records still reference it.`,
      success: 'Deleted.',
    },
  };

  /** The answer of a successful operation, from its declaration. */
  const success = (declared: OperationDeclaration, text: string): Record<string, unknown> => {
    const { status, body } = declared.success;
    if (body === 'none') return { [status]: { description: text } };
    if (body === 'page') {
      return {
        [status]: {
          description: text,
          headers: { 'X-Total-Count': headerRef('XTotalCount'), Link: headerRef('Link') },
          content: { [JSON_MEDIA_TYPE]: { schema: { type: 'array', items: selected } } },
        },
      };
    }
    // A read takes `fields=` too; writes answer with the whole record.
    const response = recordResponse(text, declared.name === 'read' ? selected : record);
    return {
      [status]: status === 201 ? { ...response, headers: { Location: headerRef('Location') } } : response,
    };
  };

  const items: Record<string, PathItem> = {};
  for (const declared of doc.operations) {
    const text = texts[declared.name];
    const path = declared.path === '/' ? collectionPath(doc) : itemPath(doc);
    const parameters =
      declared.name === 'list'
        ? listParameters(doc, relations)
        : declared.name === 'read'
          ? readParameters
          : undefined;
    const item = items[path] ?? (declared.path === '/' ? {} : { parameters: [idParameter(model)] });
    items[path] = item;
    item[declared.method.toLowerCase()] = operation(doc, declared.policy, ctx, {
      operationId: text.operationId,
      summary: text.summary,
      description: text.description,
      ...(parameters === undefined ? {} : { parameters }),
      ...(declared.body === undefined
        ? {}
        : { requestBody: jsonBody(writeSchema(declared.body), text.body ?? '') }),
      success: success(declared, text.success),
      errors: checkErrors(declared.checks),
      ...(declared.checks.includes('query') && declared.method === 'GET'
        ? { related: relationAccess(relations, ctx.securityScheme, declared.name === 'list') }
        : {}),
    });
  }
  return items;
}
