/** The JSON Schema (2020-12) subset the framework writes; also the schema dialect of OpenAPI 3.1. */

/** A JSON Schema object as the framework builds it. */
export interface JsonSchema {
  /** The JSON type, or several (e.g. `['string', 'null']` for a nullable field). */
  type?: string | string[];
  /** A format annotation such as `date-time`, `uuid` or `email`. */
  format?: string;
  /** An ECMAScript regular expression a string must match. */
  pattern?: string;
  /** The only values allowed. */
  enum?: readonly unknown[];
  /** The one value allowed. */
  const?: unknown;
  /** Smallest number allowed (inclusive). */
  minimum?: number;
  /** Largest number allowed (inclusive). */
  maximum?: number;
  /** Shortest string allowed, in characters. */
  minLength?: number;
  /** Longest string allowed, in characters. */
  maxLength?: number;
  /** Fewest array items allowed. */
  minItems?: number;
  /** Most array items allowed. */
  maxItems?: number;
  /** The schema of every array item. */
  items?: JsonSchema;
  /** The schema of each named member of an object. */
  properties?: Record<string, JsonSchema>;
  /** Members an object must have. */
  required?: string[];
  /** Whether members not named in `properties` are allowed, or their schema. */
  additionalProperties?: boolean | JsonSchema;
  /** Valid when at least one of these schemas is. */
  anyOf?: JsonSchema[];
  /** Valid when exactly one of these schemas is. */
  oneOf?: JsonSchema[];
  /** Valid when this schema is not. */
  not?: JsonSchema;
  /** Reference to another schema, e.g. `#/components/schemas/Problem`. */
  $ref?: string;
  /** The value used when none is given (an annotation only). */
  default?: unknown;
  /** What the value means, for readers of the document. */
  description?: string;
  /** A short name for the schema. */
  title?: string;
  /** Sample values, shown in Swagger UI. */
  examples?: unknown[];
  /** Sent in responses, never accepted in requests. */
  readOnly?: boolean;
  /** Accepted in requests, never sent in responses (e.g. `password`). */
  writeOnly?: boolean;
  [keyword: `x-${string}`]: unknown;
}
