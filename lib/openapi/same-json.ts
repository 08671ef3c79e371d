/** Whether two JSON values (schemas built by this code, keys in one order) are the same. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
