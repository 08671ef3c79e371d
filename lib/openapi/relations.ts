/**
 * What a router's relations add to its operations: the `include` parameter, the key-or-record
 * fields and embedded collections of its read schema, `rel.field` names for `fields`, `sort` and
 * `filter[…]`, and the 401/403 a related router's read rules can give. A relation is documented
 * only when its target model has routes in the same document, whose read schema it refers to.
 */
import { INCLUDE_LIMITS, type IncludableRelation } from '../model/relations.js';
import { isJsonKey, isQueryable, selectableFields, sortableFields } from '../query/field-paths.js';
import type { JsonSchema } from '../schema/json-schema.js';
import type { FieldDescription, ModelClass, Policy } from '../types.js';
import type { ProblemResponseName } from './components.js';
import type { CrudRoutesDoc } from './types.js';

/** The routes that serve a related model in this document, and the `$ref`s of their read schemas. */
export interface RelationTarget {
  /** The target model's router, as documented. */
  readonly routes: CrudRoutesDoc;
  /** `$ref` of the read schema of those routes: a whole record, as writes answer it. */
  readonly record: JsonSchema;
  /**
   * `$ref` of the schema of a record that a field selection may have narrowed (no field
   * required), as lists and reads answer it.
   */
  readonly fields: JsonSchema;
}

/**
 * Which read schema embedded records get: the whole `record`, or the `fields` one a selection may
 * have narrowed (`fields=owner.username` sends only that field of the owner).
 */
export type EmbeddedShape = 'record' | 'fields';

/** Finds the documented routes of a model (the first router registered for it), if any. */
export type RelationTargets = (model: ModelClass) => RelationTarget | undefined;

/** One relation as the document shows it for a router. */
export interface DocumentedRelation extends RelationTarget {
  /** Its `include=` name: the relation's name, or `first.second` one level deeper. */
  readonly path: string;
  /** The relation, as the router (or, one level deeper, the related router) resolved it. */
  readonly relation: IncludableRelation;
  /** 1 for the router's own relations, 2 for those of a related router. */
  readonly depth: 1 | 2;
}

/** The relations a router documents: its own ones, each followed by its target's own (depth 2). */
export function documentedRelations(doc: CrudRoutesDoc, targets: RelationTargets): DocumentedRelation[] {
  const result: DocumentedRelation[] = [];
  for (const relation of doc.relations?.() ?? []) {
    const target = targets(relation.target.model);
    if (target === undefined) continue;
    result.push({ ...target, path: relation.name, relation, depth: 1 });
    for (const nested of relation.nested()) {
      const inner = targets(nested.target.model);
      if (inner === undefined) continue;
      result.push({ ...inner, path: `${relation.name}.${nested.name}`, relation: nested, depth: 2 });
    }
  }
  return result;
}

/** The relations of the router itself (no dotted path). */
function direct(relations: readonly DocumentedRelation[]): DocumentedRelation[] {
  return relations.filter((entry) => entry.depth === 1);
}

/** The router's own many-to-one relations: the only ones filters and sort go through. */
function toOne(relations: readonly DocumentedRelation[]): DocumentedRelation[] {
  return direct(relations).filter((entry) => entry.relation.kind === 'many-to-one');
}

/** The target model's name, for sentences about it. */
function targetName(entry: DocumentedRelation): string {
  return entry.relation.target.name;
}

/**
 * The read schema with the router's relations: an includable many-to-one field is its key or,
 * when included, the related record; a to-many relation is an optional array of related records.
 * Embedded records are described by the target's schema of the given shape.
 */
export function withRelationProperties(
  schema: JsonSchema,
  relations: readonly DocumentedRelation[],
  includeLimit: number = INCLUDE_LIMITS.defaultLimit,
  shape: EmbeddedShape = 'record',
): JsonSchema {
  const own = direct(relations);
  if (own.length === 0) return schema;
  const properties = { ...schema.properties };
  for (const entry of own) {
    const { relation } = entry;
    if (relation.kind === 'many-to-one') {
      const name = relation.field?.name ?? relation.name;
      const key = properties[name];
      if (key === undefined) continue;
      const { description, ...keySchema } = key;
      const absent = relation.field?.nullable === true ? ' (`null` when there is none)' : '';
      properties[name] = {
        description:
          `${description ?? `Key of the referenced ${targetName(entry)}.`} With \`include=${relation.name}\`, ` +
          `the ${targetName(entry)} record itself${absent}, as its own routes return it.`,
        oneOf: [keySchema, structuredClone(entry[shape])],
      };
    } else {
      properties[relation.name] = {
        type: 'array',
        items: structuredClone(entry[shape]),
        maxItems: includeLimit,
        readOnly: true,
        description:
          `The related ${targetName(entry)} records, in the relation's order (its ORM's, such as MikroORM's orderBy), ` +
          `else by their key, at most ${includeLimit}; ` +
          `present only when the request names \`${relation.name}\` in \`include\`.`,
      };
    }
  }
  return { ...schema, properties };
}

/** The `include` query parameter of list and read operations, or `undefined` without relations. */
export function includeParameter(
  relations: readonly DocumentedRelation[],
  includeLimit: number = INCLUDE_LIMITS.defaultLimit,
): Record<string, unknown> | undefined {
  if (relations.length === 0) return undefined;
  const deeper = relations.find((entry) => entry.depth === 2)?.path ?? 'relation.nested';
  return {
    name: 'include',
    in: 'query',
    description:
      'Comma-separated relations to embed in each record: a many-to-one field then holds the related record ' +
      '(or `null`) instead of its key, and a to-many relation appears as an array of related records, in the ' +
      "relation's order (its ORM's, such as MikroORM's orderBy), else by their key, " +
      `at most ${includeLimit} per record (one level deeper, the related router's own limit, ` +
      `as \`maxItems\` in its schema says). A dotted path (\`${deeper}\`) embeds one level ` +
      'deeper (at most two) and implies its first step. Embedded records are serialized by their own ' +
      "router's rules (hidden fields never appear). Repeating the parameter is the same as one " +
      'comma-separated list.',
    style: 'form',
    explode: false,
    schema: {
      type: 'array',
      items: { type: 'string', enum: relations.map((entry) => entry.path) },
      uniqueItems: true,
    },
  };
}

/**
 * Relation names `fields=` accepts: each includable to-many relation (`comments`), and the readable
 * fields of each includable relation by dotted name, one level deeper too (`author.name`,
 * `comments.author.name`).
 */
export function relationFieldNames(relations: readonly DocumentedRelation[]): string[] {
  // An included to-many relation may be named as it is (it is in the response anyway).
  const collections = direct(relations)
    .filter((entry) => entry.relation.kind !== 'many-to-one')
    .map((entry) => entry.path);
  return [
    ...collections,
    ...relations.flatMap((entry) =>
      selectableFields(entry.relation.target).map((name) => `${entry.path}.${name}`),
    ),
  ];
}

/** `rel.field` sort keys: the sortable fields of each many-to-one target. */
export function relationSortKeys(relations: readonly DocumentedRelation[]): string[] {
  return toOne(relations).flatMap((entry) =>
    sortableFields(entry.relation.target).map((name) => `${entry.path}.${name}`),
  );
}

/**
 * `rel.field` filter paths: the readable, queryable top-level fields of each many-to-one target
 * that an operator other than `$exists` can test (not JSON values, but a key of a custom type).
 */
export function relationFilterPaths(
  relations: readonly DocumentedRelation[],
): { path: string; field: FieldDescription; relation: string }[] {
  return toOne(relations).flatMap((entry) =>
    entry.relation.target.fields
      .filter((field) => !field.hidden && isQueryable(field) && (field.type !== 'json' || isJsonKey(field)))
      .map((field) => ({ path: `${entry.path}.${field.name}`, field, relation: entry.path })),
  );
}

/** What the related routers' read rules add to a list or read operation. */
export interface RelationAccess {
  /** 401 when a related router needs a user, 403 when one has a read policy. */
  readonly errors: ProblemResponseName[];
  /** The sentence saying so, when there is one. */
  readonly notes: string[];
  /** Security schemes of the related routers that need a user (for an optional requirement). */
  readonly schemes: string[];
}

/**
 * The 401/403 that including (or filtering and sorting through) a relation can give: each related
 * router's authentication and read policy apply to the caller.
 */
export function relationAccess(
  relations: readonly DocumentedRelation[],
  scheme: (routes: CrudRoutesDoc, policy: Policy | undefined) => string,
  list: boolean,
): RelationAccess {
  const errors: ProblemResponseName[] = [];
  const schemes = new Set<string>();
  const needUser: string[] = [];
  const policed: string[] = [];
  for (const entry of relations) {
    const policy = entry.routes.policies.GET;
    if (entry.routes.secure || policy?.requiresUser === true) {
      needUser.push(`\`${entry.path}\``);
      schemes.add(scheme(entry.routes, policy));
    }
    if (policy !== undefined) policed.push(`\`${entry.path}\` (${policy.name})`);
  }
  if (needUser.length === 0 && policed.length === 0) return { errors, notes: [], schemes: [] };
  const through = list ? '`include=`, and filters or sort through a relation,' : '`include=`';
  const parts = [`Relations: ${through} apply the related router's read rules.`];
  if (needUser.length > 0) {
    errors.push('Unauthorized');
    parts.push(`${needUser.join(', ')} need a bearer token (401 without one).`);
  }
  if (policed.length > 0) {
    errors.push('Forbidden');
    parts.push(
      `${policed.join(', ')}: 403 naming the relation when that read policy refuses the caller, ` +
        'a related record, or would narrow what the caller reads (a relation is never partially embedded).',
    );
  }
  return { errors, notes: [parts.join(' ')], schemes: [...schemes] };
}
