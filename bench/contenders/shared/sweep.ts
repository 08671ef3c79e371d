/**
 * The extra models of the route sweep: `BENCH_MODELS=N` makes a contender serve N models, posts and
 * N − 1 small ones (`Sweep<n>`, table `sweep_<n>`: id, title), defined with MikroORM's
 * `defineEntity` on a class of the contender's choosing (the framework's need `FrameworkModel`).
 */
import { defineEntity, type EntitySchema, p } from '@mikro-orm/core';

/** A class of an extra model: its instances carry the two columns. */
export type SweepClass = new () => { id: number; title: string };

/** One extra model: its class, its MikroORM schema and its resource path. */
export interface SweepModel {
  readonly model: SweepClass;
  readonly schema: EntitySchema;
  readonly path: string;
}

/** How many models the contender serves (`BENCH_MODELS`, default 1: posts alone). */
export function modelCount(): number {
  const count = Number(process.env.BENCH_MODELS ?? '1');
  if (!Number.isInteger(count) || count < 1) throw new Error('BENCH_MODELS must be a positive integer');
  return count;
}

/** The extra models `Sweep1` … `Sweep<count − 1>`, each class made from `base` and named after its model. */
export function sweepModels(count: number, base: () => SweepClass): SweepModel[] {
  return Array.from({ length: count - 1 }, (_, i) => {
    const n = i + 1;
    const model = base();
    Object.defineProperty(model, 'name', { value: `Sweep${n}` });
    const schema = defineEntity({
      class: model,
      tableName: `sweep_${n}`,
      properties: { id: p.integer().primary(), title: p.string() },
    }) as unknown as EntitySchema;
    return { model, schema, path: `/sweep_${n}` };
  });
}
