/**
 * The shape check of a plugged-in object (a store, a hasher): an object with a function under each
 * method name, so that a wrong value fails at start-up with a `ConfigurationError`, not on a request.
 */

/** Whether `value` is an object with a function under each of `methods`. */
export function hasMethods<T>(value: unknown, methods: readonly (keyof T & string)[]): value is T {
  if (typeof value !== 'object' || value === null) return false;
  const object = value as Record<string, unknown>;
  return methods.every((name) => typeof object[name] === 'function');
}
