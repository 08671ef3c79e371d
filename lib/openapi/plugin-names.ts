/**
 * A router's `<Model>` schema and a plugin schema of the same name (the auth plugin declares its
 * user model's read schema as `User`): the router's schema keeps the name routes.md promises, and
 * the plugin's operations refer to it when it describes everything the plugin's did; otherwise the
 * plugin's schema moves to a free name, and the plugin's `$ref`s follow it.
 */
import type { JsonSchema } from '../schema/json-schema.js';
import { sameJson } from './same-json.js';

const REF_PREFIX = '#/components/schemas/';

/**
 * Whether a router's property accepts what the plugin's does: the same schema, or a many-to-one's
 * key that `include=` may replace by the record (`oneOf: [the key, the record]`).
 */
function widensProperty(record: JsonSchema, plugin: JsonSchema): boolean {
  if (sameJson(record, plugin)) return true;
  const { description: _, ...key } = plugin;
  return record.oneOf !== undefined && sameJson(record.oneOf[0], key);
}

/**
 * Whether `record` accepts every value `plugin` describes and means the same by it: the same schema
 * but for what a router adds for `include=`: optional read-only to-many properties, and a record
 * in place of a many-to-one's key.
 */
export function widens(record: JsonSchema, plugin: JsonSchema): boolean {
  const recordProperties: Readonly<Record<string, JsonSchema>> = record.properties ?? {};
  const pluginProperties: Readonly<Record<string, JsonSchema>> = plugin.properties ?? {};
  const keys = new Set([...Object.keys(record), ...Object.keys(plugin)]);
  keys.delete('properties');
  for (const key of keys) {
    if (!sameJson(record[key as keyof JsonSchema], plugin[key as keyof JsonSchema])) return false;
  }
  const required = new Set(record.required ?? []);
  for (const [name, schema] of Object.entries(recordProperties)) {
    const theirs = pluginProperties[name];
    if (
      theirs === undefined ? schema.readOnly !== true || required.has(name) : !widensProperty(schema, theirs)
    )
      return false;
  }
  return Object.keys(pluginProperties).every((name) => name in recordProperties);
}

/** Points every `$ref` to a renamed schema (`old` → `new` name) at its new name, in place. */
export function followRenames(value: unknown, renamed: ReadonlyMap<string, string>): void {
  if (renamed.size === 0 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) followRenames(item, renamed);
    return;
  }
  const object = value as Record<string, unknown>;
  const ref = object.$ref;
  if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
    const moved = renamed.get(ref.slice(REF_PREFIX.length));
    if (moved !== undefined) object.$ref = `${REF_PREFIX}${moved}`;
  }
  for (const child of Object.values(object)) followRenames(child, renamed);
}
