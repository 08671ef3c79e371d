/**
 * The query string of the routes other than the list: a read (`GET /{resource}/{id}`) takes
 * `fields` and `include` as a list does; a create, an update and a delete take no parameter.
 * Anything else is refused with the list's 400 rather than ignored: `DELETE /posts/1?filter[id]=2`
 * must not delete record 1 as if the filter had been applied. Names starting with `_` or `utm_`
 * are ignored, as on lists.
 */
import { ApiError } from '../errors.js';
import type { IncludableRelation } from '../model/relations.js';
import type { ModelDescription } from '../types.js';
import { type IncludeRequest, includeRequests, parseInclude } from './include.js';
import { isIgnoredParameter, parseFields } from './list-query.js';

/** A parsed read request: the field selection and the relations to embed, when it names some. */
export interface ReadQuery {
  /** The record's field selection (`fields=`); lazy fields are sent only when named here. */
  readonly fields?: readonly string[];
  /** The relations to embed (`include=`), with the selections `fields=` makes in them. */
  readonly include?: readonly IncludeRequest[];
}

/** The 400 of a parameter a route of one record does not take. */
function unknownParameter(key: string, route: string, takes: string): ApiError {
  return ApiError.invalidQuery(
    `Unknown query parameter "${key}"; ${route} takes ${takes} (names starting with _ or utm_ are ignored).`,
  );
}

/** Parses the query string of `GET /{resource}/{id}`: `fields` and `include`, each repeatable. */
export function parseReadQuery(
  model: ModelDescription,
  search: string,
  relations: readonly IncludableRelation[],
): ReadQuery {
  if (search === '') return {};
  const fieldParts: string[] = [];
  const includeParts: string[] = [];
  for (const [key, value] of new URLSearchParams(search)) {
    if (isIgnoredParameter(key)) continue;
    if (key === 'fields') fieldParts.push(value);
    else if (key === 'include') includeParts.push(value);
    else throw unknownParameter(key, 'a read', relations.length === 0 ? 'fields' : 'fields and include');
  }
  const included = parseInclude(model, includeParts, relations);
  const fields = fieldParts.length === 0 ? undefined : parseFields(model, fieldParts.join(','), included);
  return {
    ...(fields === undefined ? {} : { fields }),
    ...(included.size === 0 ? {} : { include: includeRequests(included) }),
  };
}

/** Refuses any parameter but the ignored ones: the query string of a create, an update or a delete. */
export function refuseQuery(search: string, route: 'a create' | 'an update' | 'a delete'): void {
  if (search === '') return;
  for (const key of new URLSearchParams(search).keys()) {
    if (!isIgnoredParameter(key)) throw unknownParameter(key, route, 'no query parameters');
  }
}
