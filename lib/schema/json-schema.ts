/** The JSON Schema (2020-12) subset the framework writes; also the schema dialect of OpenAPI 3.1. */

/** A JSON Schema object as the framework builds it. */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: readonly unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
  description?: string;
  title?: string;
  examples?: unknown[];
  readOnly?: boolean;
  writeOnly?: boolean;
  [keyword: `x-${string}`]: unknown;
}
