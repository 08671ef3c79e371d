/**
 * The discovery hook that applies the core's model conventions to MikroORM metadata: a static
 * `__tablename__` names the table, and columns listed by mixins (`MIXIN_FIELDS`) become properties.
 */
import {
  type EntityMetadata,
  type EntityProperty,
  EntitySchema,
  MetadataStorage,
  ReferenceKind,
} from '@mikro-orm/core';
import { explicitTableName, type MixinFieldSpec, mixinFieldsOf } from '../../lib/model/framework-model.js';
import type { ModelClass } from '../../lib/types.js';

const MIKRO_ORM_TYPES: Readonly<Record<MixinFieldSpec['type'], { type: string; runtimeType: string }>> = {
  string: { type: 'string', runtimeType: 'string' },
  boolean: { type: 'boolean', runtimeType: 'boolean' },
  integer: { type: 'integer', runtimeType: 'number' },
  datetime: { type: 'datetime', runtimeType: 'Date' },
};

type DecoratedClass = {
  [MetadataStorage.META_SYMBOL]?: {
    properties?: Record<string, unknown>;
    tableName?: string;
    collection?: string;
  };
};

/** The table name the entity's own definition gives (decorator options or `defineEntity`), if any. */
export function declaredTableName(cls: object): string | undefined {
  const decorated = cls as DecoratedClass;
  const own = Object.hasOwn(decorated, MetadataStorage.META_SYMBOL)
    ? decorated[MetadataStorage.META_SYMBOL]
    : undefined;
  const schema = EntitySchema.REGISTRY.get(cls as never)?.meta;
  return own?.tableName ?? own?.collection ?? schema?.tableName ?? schema?.collection;
}

/** Whether a class above `cls` declares `name` itself (decorators keep per-class metadata on the class). */
function declaredByAncestor(cls: object, name: string): boolean {
  for (
    let current = Object.getPrototypeOf(cls) as DecoratedClass | null;
    current && current !== Function.prototype;
    current = Object.getPrototypeOf(current) as DecoratedClass | null
  ) {
    const legacy = Object.hasOwn(current, MetadataStorage.META_SYMBOL)
      ? current[MetadataStorage.META_SYMBOL]?.properties
      : undefined;
    // ES decorators on a class without @Entity() leave their properties in Symbol.metadata only
    // (polyfilled by @mikro-orm/decorators/es; absent when ES decorators are not in use).
    const metadataKey = (Symbol as { metadata?: symbol }).metadata;
    const esMetadata =
      metadataKey !== undefined && Object.hasOwn(current, metadataKey)
        ? ((current as unknown as Record<symbol, { properties?: object } | null>)[metadataKey] ?? null)
        : null;
    if ((legacy && Object.hasOwn(legacy, name)) || (esMetadata?.properties && name in esMetadata.properties))
      return true;
  }
  return false;
}

/** The MikroORM property for a mixin column. */
export function mixinProperty(name: string, spec: MixinFieldSpec): Partial<EntityProperty> {
  const { type, runtimeType } = MIKRO_ORM_TYPES[spec.type];
  const prop: Partial<EntityProperty> = {
    name,
    kind: ReferenceKind.SCALAR,
    type,
    runtimeType,
    nullable: spec.nullable,
  };
  if (spec.hidden) prop.hidden = true;
  if (spec.default !== undefined) prop.default = spec.default;
  if (spec.length !== undefined) prop.length = spec.length;
  return prop;
}

/** Field names whose declaration on the model drops a mixin column (e.g. `is_staff` drops `is_admin`). */
export function omittedWhenDeclared(spec: MixinFieldSpec): readonly string[] {
  return (spec as MixinFieldSpec & { readonly omitWhenDeclared?: readonly string[] }).omitWhenDeclared ?? [];
}

/**
 * Runs for every discovered entity (MikroORM `discovery.onMetadata`), before MikroORM derives
 * columns and inheritance, so what it adds is treated like a declared property.
 */
export function applyModelConventions(meta: EntityMetadata): void {
  const cls = meta.class as unknown as ModelClass | undefined;
  if (typeof cls !== 'function') return;
  const table = explicitTableName(cls);
  if (table !== undefined) meta.tableName = table;
  // Only concrete entities get mixin columns: a mixin's own (abstract) class would pass them on
  // by inheritance even where the model opted out of one (`omitWhenDeclared`).
  if (meta.abstract) return;
  const declared = (name: string) =>
    meta.properties[name as keyof typeof meta.properties] !== undefined || declaredByAncestor(cls, name);
  for (const [name, spec] of Object.entries(mixinFieldsOf(cls))) {
    // The model's own declaration (or one on a base class) wins over the mixin's.
    if (declared(name) || omittedWhenDeclared(spec).some(declared)) continue;
    meta.addProperty(mixinProperty(name, spec));
  }
}
