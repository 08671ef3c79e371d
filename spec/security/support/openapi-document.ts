/**
 * Reading an OpenAPI document loosely: local `$ref` resolution and the list of its operations
 * with their parameters, for the fuzzer and the response checker.
 */

/** A JSON Schema or OpenAPI object, read loosely. */
export type Json = Record<string, unknown>;

/** One operation of the document. */
export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operation: Json;
  readonly parameters: readonly Json[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The value as an object (an empty one when it is not). */
export function asJson(value: unknown): Json {
  return typeof value === 'object' && value !== null ? (value as Json) : {};
}

/** Resolves a local `$ref` (`#/components/...`) of the document. */
export function resolve(doc: Json, value: unknown): Json {
  let node = asJson(value);
  for (let hops = 0; typeof node.$ref === 'string' && hops < 10; hops += 1) {
    const pointer = (node.$ref as string).replace(/^#\//, '').split('/');
    let target: unknown = doc;
    for (const part of pointer) target = asJson(target)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    node = asJson(target);
  }
  return node;
}

/** Every operation of the document, with its path-level and operation-level parameters resolved. */
export function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(asJson(doc.paths))) {
    const shared = (asJson(item).parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = asJson(item)[method];
      if (operation === undefined) continue;
      const own = (asJson(operation).parameters as unknown[] | undefined) ?? [];
      operations.push({
        method: method.toUpperCase(),
        path,
        operation: asJson(operation),
        parameters: [...shared, ...own].map((parameter) => resolve(doc, parameter)),
      });
    }
  }
  return operations;
}
