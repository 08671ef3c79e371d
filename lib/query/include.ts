/**
 * The `include=` parameter: which relations a request embeds, one or two levels deep
 * (`include=owner,comments.author`), and the `fields=` names that select fields of an embedded
 * record by dotted path (`fields=title,owner.username`).
 */
import { ApiError } from '../errors.js';
import { type IncludableRelation, MAX_INCLUDE_DEPTH } from '../model/relations.js';
import type { ModelDescription } from '../types.js';

/** One relation a request embeds, with its field selection and the relations embedded in it. */
export interface IncludeRequest {
  /** The relation's name (a many-to-one field or a collection). */
  readonly name: string;
  /** The embedded records' field selection, when `fields=` names some by dotted path. */
  readonly fields?: readonly string[];
  /** Relations of the target embedded in each embedded record. */
  readonly nested: readonly IncludeRequest[];
}

/** A mutable include tree node while parsing. */
interface Node {
  readonly name: string;
  readonly relation: IncludableRelation;
  fields: string[] | undefined;
  readonly nested: Map<string, Node>;
}

/** The names `include=` accepts at the top level (for messages). */
function allowedNames(relations: readonly IncludableRelation[]): string {
  return relations.length === 0 ? 'none' : relations.map((relation) => relation.name).join(', ');
}

/** Parses the values of `include` (each a comma-separated list) against the includable relations. */
export function parseInclude(
  model: ModelDescription,
  values: readonly string[],
  relations: readonly IncludableRelation[],
): Map<string, Node> {
  const roots = new Map<string, Node>();
  for (const path of values.flatMap((value) => value.split(','))) {
    if (path === '') throw ApiError.invalidQuery('include: empty relation name.');
    const steps = path.split('.');
    if (steps.length > MAX_INCLUDE_DEPTH) {
      throw ApiError.invalidQuery(
        `include: "${path}" is ${steps.length} levels deep; at most ${MAX_INCLUDE_DEPTH} are allowed (e.g. comments.author).`,
      );
    }
    let level = roots;
    let available = relations;
    let owner = model.name;
    for (const step of steps) {
      const relation = available.find((candidate) => candidate.name === step);
      if (relation === undefined) {
        throw ApiError.invalidQuery(
          `include: ${owner} has no includable relation "${step}"; includable: ${allowedNames(available)}.`,
        );
      }
      let node = level.get(step);
      if (node === undefined) {
        node = { name: step, relation, fields: undefined, nested: new Map() };
        level.set(step, node);
      }
      level = node.nested;
      available = relation.nested();
      owner = relation.target.name;
    }
  }
  return roots;
}

/**
 * Routes a dotted `fields=` name (`owner.username`, `comments.author.name`) to the included
 * relation it selects from; the last step must be a readable field of that relation's target.
 * A name whose relation is not included is a 400 that says to include it.
 */
export function selectIncludedField(roots: Map<string, Node>, path: string): void {
  const steps = path.split('.');
  let level = roots;
  let node: Node | undefined;
  for (let index = 0; index < steps.length - 1; index++) {
    node = level.get(steps[index] as string);
    if (node === undefined) {
      const relation = steps.slice(0, index + 1).join('.');
      throw ApiError.invalidQuery(
        `fields: "${path}" selects from the relation "${relation}", which the request does not include; add include=${relation}.`,
      );
    }
    level = node.nested;
  }
  const name = steps[steps.length - 1] as string;
  const target = (node as Node).relation.target;
  const field = target.fieldsByName.get(name);
  if (field === undefined || field.hidden) {
    throw ApiError.invalidQuery(`fields: ${target.name} has no readable field "${name}".`);
  }
  const chosen = (node as Node).fields ?? [];
  if (!chosen.includes(name)) chosen.push(name);
  (node as Node).fields = chosen;
}

/** The parsed tree as the handlers read it. */
export function includeRequests(roots: Map<string, Node>): IncludeRequest[] {
  return [...roots.values()].map((node) => ({
    name: node.name,
    ...(node.fields === undefined ? {} : { fields: node.fields }),
    nested: includeRequests(node.nested),
  }));
}
