/**
 * A real adapter with a door in it: `heldAdapter(adapter)` passes every call through, except that
 * one armed call waits on a gate the test opens. It stops a request at an exact point (after it
 * read a user, before a write lands) so an interleaving of two requests is played in order
 * instead of hoped for with timing.
 */
import type { OrmAdapter, RawRecord } from '../../../../lib/types.js';

/** One armed stop: `reached` resolves when a call arrives there, `open()` lets it go on. */
export interface Gate {
  readonly reached: Promise<void>;
  open(): void;
}

/** The adapter and how to arm its stops; each armed stop catches the next matching call only. */
export interface HeldAdapter {
  readonly adapter: OrmAdapter;
  /** Stops the next `findBy` once it has read its row, before the caller sees it. */
  afterRead(): Gate;
  /** Stops the next `update` whose data has `field`, before it is written. */
  beforeWrite(field: string): Gate;
}

function gate(): Gate & { readonly passed: Promise<void>; arrive(): void } {
  let arrive = (): void => {};
  let open = (): void => {};
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { reached, passed, arrive, open };
}

/** Wraps `adapter` (its methods keep their own `this`). */
export function heldAdapter(adapter: OrmAdapter): HeldAdapter {
  let read: ReturnType<typeof gate> | undefined;
  let write: { field: string; stop: ReturnType<typeof gate> } | undefined;
  const wrapped = new Proxy(adapter, {
    get(target, name) {
      if (name === 'findBy') {
        return async (...args: Parameters<OrmAdapter['findBy']>): Promise<RawRecord | undefined> => {
          const row = await target.findBy(...args);
          const stop = read;
          read = undefined;
          if (stop !== undefined) {
            stop.arrive();
            await stop.passed;
          }
          return row;
        };
      }
      if (name === 'update') {
        return async (...args: Parameters<OrmAdapter['update']>): Promise<RawRecord | undefined> => {
          const armed = write;
          if (armed !== undefined && Object.hasOwn(args[3], armed.field)) {
            write = undefined;
            armed.stop.arrive();
            await armed.stop.passed;
          }
          return target.update(...args);
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    adapter: wrapped,
    afterRead() {
      read = gate();
      return read;
    },
    beforeWrite(field) {
      const stop = gate();
      write = { field, stop };
      return stop;
    },
  };
}
