/** Schema changes for development: add what the entities need, never drop anything. */
import type { MikroORM } from '@mikro-orm/core';

/**
 * `orm.schema.update({ safe: true })`, retried: several instances starting at once on an empty
 * database race to create the same tables and the loser's DDL fails; computing the difference
 * again then finds nothing (or less) left to do.
 */
export async function updateSchemaSafely(orm: Pick<MikroORM, 'schema'>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await orm.schema.update({ safe: true });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt));
    }
  }
}
