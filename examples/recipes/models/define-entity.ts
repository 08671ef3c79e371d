/** `defineEntity`: no decorators; a natural key and a many-to-one relation. */
import { defineEntity, p } from '@mikro-orm/core';
import { FrameworkModel } from '../../../lib/index.js';

/** Table `countries`; the client gives `code` on create, and it never changes. */
export class Country extends FrameworkModel {
  declare code: string;
  declare name: string;
}

/** The MikroORM schema of `Country`. */
export const CountrySchema = defineEntity({
  class: Country,
  properties: {
    code: p.string().length(2).primary(),
    name: p.string(),
  },
});

/** Table `cities`; `country` reads and writes as the country's code. */
export class City extends FrameworkModel {
  declare id: number;
  declare name: string;
  declare country: Country;
}

/** The MikroORM schema of `City`. */
export const CitySchema = defineEntity({
  class: City,
  properties: {
    id: p.integer().primary(),
    name: p.string(),
    country: () => p.manyToOne(Country),
  },
});
