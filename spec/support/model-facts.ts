/** Hand-made model descriptions for unit tests of the core (no adapter involved). */
import { buildModelDescription } from '../../lib/model/describe.js';
import type { FieldDescription, ModelClass, ModelDescription } from '../../lib/types.js';

type FieldInput = Partial<Omit<FieldDescription, 'name'>> & Pick<FieldDescription, 'type'>;

/** A description of `model` with the given fields (`id` integer generated key unless given). */
export function describeFields(model: ModelClass, fields: Record<string, FieldInput>): ModelDescription {
  const all: Record<string, FieldInput> = {
    id: { type: 'integer', primary: true, generated: true },
    ...fields,
  };
  const primaryKeys = Object.entries(all)
    .filter(([, field]) => field.primary === true)
    .map(([name]) => name);
  return buildModelDescription({
    model,
    name: model.name,
    primaryKeys,
    fields: Object.entries(all).map(([name, field]) => ({
      name,
      type: field.type,
      nullable: field.nullable ?? false,
      required:
        field.required ??
        (!(field.nullable ?? false) && !(field.hasDefault ?? false) && !(field.generated ?? false)),
      hasDefault: field.hasDefault ?? false,
      unique: field.unique ?? false,
      hidden: field.hidden ?? false,
      primary: field.primary ?? false,
      generated: field.generated ?? false,
      ...(field.default === undefined ? {} : { default: field.default }),
      ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
      ...(field.minimum === undefined ? {} : { minimum: field.minimum }),
      ...(field.maximum === undefined ? {} : { maximum: field.maximum }),
      ...(field.enumValues === undefined ? {} : { enumValues: field.enumValues }),
      ...(field.singlePrecision === undefined ? {} : { singlePrecision: field.singlePrecision }),
      ...(field.digits === undefined ? {} : { digits: field.digits }),
      ...(field.patterns === undefined ? {} : { patterns: field.patterns }),
      ...(field.filterLimit === undefined ? {} : { filterLimit: field.filterLimit }),
      ...(field.relation === undefined ? {} : { relation: field.relation }),
      ...(field.property === undefined ? {} : { property: field.property }),
      ...(field.itemType === undefined ? {} : { itemType: field.itemType }),
      ...(field.fields === undefined ? {} : { fields: field.fields }),
      ...(field.setOnUpdate === undefined ? {} : { setOnUpdate: field.setOnUpdate }),
    })),
  });
}
