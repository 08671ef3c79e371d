/**
 * Request-body schemas as a lenient (non-`strict`) route documents them: the server drops fields a
 * client may not write instead of refusing them, so the document must not say
 * `additionalProperties: false` there, or validating clients and proxies would refuse bodies the
 * server accepts.
 */
import type { JsonSchema } from '../schema/json-schema.js';

/**
 * A copy of a write schema that allows unknown properties at every object level when `strict` is
 * false (what the server then does); the schema unchanged when `strict` is true.
 */
export function documentedWriteSchema(schema: JsonSchema, strict: boolean): JsonSchema {
  if (strict) return schema;
  return openObjects(schema);
}

/** Drops `additionalProperties: false` from a schema and the object schemas nested in its properties and items. */
function openObjects(schema: JsonSchema): JsonSchema {
  const { additionalProperties, ...rest } = schema;
  const result: JsonSchema = additionalProperties === false ? rest : { ...schema };
  if (schema.properties !== undefined) {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, inner] of Object.entries(schema.properties)) properties[name] = openObjects(inner);
    result.properties = properties;
  }
  if (schema.items !== undefined) result.items = openObjects(schema.items);
  return result;
}
