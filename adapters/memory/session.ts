/**
 * The unit of work of the `MemoryAdapter`. Every method applies its change at once (there are no
 * transactions to span), so a session only identifies its adapter and request; it exists because
 * the `OrmAdapter` contract gives one to every data method.
 */

let lastId = 0;

/** One unit of work of a `MemoryAdapter`, from `openSession()`. */
export class MemorySession {
  /** A number unique in this process, handy in logs. */
  readonly id = ++lastId;
}
