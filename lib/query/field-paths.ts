/**
 * Which fields the list parameters may name, shared by the parser and the OpenAPI document so
 * that what is documented is what is accepted: `fields=` takes top-level readable fields, `sort`
 * top-level queryable ones, and `filter` queryable scalars, inside embedded objects by dotted path.
 */
import type { FieldDescription, ModelDescription } from '../types.js';

/**
 * Whether the field is a key whose JSON form the core does not know (a primary key of a custom
 * type, or a many-to-one to one): filters compare it for equality with the text a query gives, as
 * an `{id}` path gives it; any other JSON value is tested with `$exists` only.
 */
export function isJsonKey(field: FieldDescription): boolean {
  return field.type === 'json' && (field.primary || field.relation !== undefined);
}

/** Whether filters and sort may name the field (objects and arrays never, whatever they say). */
export function isQueryable(field: FieldDescription): boolean {
  return field.queryable !== false && field.type !== 'object' && field.type !== 'array';
}

/**
 * The field at a dotted path through object fields (`address.city`), or `undefined` when a step
 * is missing or hidden (a hidden step is answered like a missing one, so it is never revealed).
 * A top-level name that itself contains a dot is found first.
 */
export function fieldAtPath(model: ModelDescription, path: string): FieldDescription | undefined {
  const direct = model.fieldsByName.get(path);
  if (direct !== undefined || !path.includes('.')) return direct?.hidden === true ? undefined : direct;
  const steps = path.split('.');
  let field = model.fieldsByName.get(steps[0] as string);
  for (let index = 1; index < steps.length; index++) {
    if (field === undefined || field.hidden || field.type !== 'object') return undefined;
    const name = steps[index];
    field = field.fields?.find((inner) => inner.name === name);
  }
  return field === undefined || field.hidden ? undefined : field;
}

/** Names `fields=` accepts: the readable top-level fields, lazy and non-queryable ones included. */
export function selectableFields(model: ModelDescription): string[] {
  return model.fields.filter((field) => !field.hidden).map((field) => field.name);
}

/** Names `sort` accepts: readable, queryable top-level fields other than JSON values. */
export function sortableFields(model: ModelDescription): string[] {
  return model.fields
    .filter((field) => !field.hidden && isQueryable(field) && field.type !== 'json')
    .map((field) => field.name);
}

/** Paths `filter[…]` accepts: readable queryable fields, and the scalars of embedded objects by dotted path. */
export function filterablePaths(model: ModelDescription): string[] {
  const paths: string[] = [];
  const walk = (fields: readonly FieldDescription[], prefix: string): void => {
    for (const field of fields) {
      if (field.hidden) continue;
      if (field.type === 'object') walk(field.fields ?? [], `${prefix}${field.name}.`);
      else if (isQueryable(field)) paths.push(`${prefix}${field.name}`);
    }
  };
  walk(model.fields, '');
  return paths;
}
