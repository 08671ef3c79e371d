/**
 * Required values clients cannot give: a hidden field (MikroORM's `hidden`) is never in a body or a
 * response, so when it is not nullable and has no default or `onCreate`, only the server can fill
 * it (a hook, a subscriber, a router's write hooks). A write without it is a 422 that names no
 * hidden field (the log does), the same in both modes (the router warns at registration,
 * lib/crud/hidden-required.ts).
 */
import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { ApiError } from '../../lib/errors.js';
import { isLeftOutBySerializer } from './describe.js';

/** Whether clients never see the property, as the model's description hides it. */
function isHidden(meta: EntityMetadata, name: string): boolean {
  const prop = meta.properties[name as keyof typeof meta.properties] as EntityProperty | undefined;
  return prop !== undefined && (prop.hidden === true || isLeftOutBySerializer(prop));
}

/**
 * The 422 of a write lacking required values (property names, each with its JSON key): naming
 * them, or `server_value_missing`, naming none, when one is hidden.
 */
export function missingValues(
  meta: EntityMetadata,
  names: readonly { readonly prop: string; readonly json: string }[],
): ApiError {
  const hidden = names.filter(({ prop }) => isHidden(meta, prop));
  if (hidden.length > 0)
    return ApiError.serverValueMissing(
      meta.className,
      hidden.map(({ prop }) => prop),
    );
  return ApiError.validation(names.map(({ json }) => ({ path: json, message: 'A value is required.' })));
}
