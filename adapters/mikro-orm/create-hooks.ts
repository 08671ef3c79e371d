/**
 * Whether MikroORM runs the application's code on a create that may set fields no client sends:
 * entity hooks and event subscribers of the events before MikroORM checks the required values.
 */
import { type EntityMetadata, type EventManager, EventType } from '@mikro-orm/core';

// Events where a hook or subscriber may set a value before MikroORM checks the required ones.
const FILLING_EVENTS = [
  EventType.onInit,
  EventType.beforeCreate,
  EventType.beforeUpsert,
  EventType.beforeFlush,
  EventType.onFlush,
] as const;

/** Whether a hook of the entity or a subscriber listens to an event before the required check. */
export function hasCreateHooks(events: EventManager, meta: EntityMetadata): boolean {
  return FILLING_EVENTS.some((event) => events.hasListeners(event, meta));
}
