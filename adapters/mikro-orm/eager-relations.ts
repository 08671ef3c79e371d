/**
 * MikroORM's `eager: true` loads a relation with every row and `toObject()` then embeds the related
 * record (a to-one) or records (a collection) in the entity's JSON, while the API serves a to-one
 * as the related key and a record without its collections, embedding related records only when
 * `include=` asks. Rather than serve a record MikroORM shows otherwise, such a model is refused.
 */
import { type EntityMetadata, type EntityProperty, ReferenceKind } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import { isLeftOutBySerializer, jsonNameOf } from './describe.js';

/** Throws a `ConfigurationError` naming the first relation of the entity a client would see that is `eager`. */
export function refuseEagerRelations(meta: EntityMetadata): void {
  const eager = meta.props.find(
    (prop: EntityProperty) =>
      prop.eager === true &&
      prop.kind !== ReferenceKind.SCALAR &&
      prop.kind !== ReferenceKind.EMBEDDED &&
      prop.hidden !== true &&
      !isLeftOutBySerializer(prop),
  );
  if (eager === undefined) return;
  const collection = eager.kind === ReferenceKind.ONE_TO_MANY || eager.kind === ReferenceKind.MANY_TO_MANY;
  const shown = collection
    ? 'its related records as an array, where the API serves a record without its collections'
    : "the related record as an object, where the API serves the related record's key";
  throw new ConfigurationError(
    `${meta.className}.${eager.name}: with \`eager: true\` MikroORM loads this relation with every ${meta.className} and its toObject() embeds ${shown}. Remove \`eager: true\` and ask for the related records with \`include=${jsonNameOf(eager)}\`, or hide the relation.`,
  );
}
