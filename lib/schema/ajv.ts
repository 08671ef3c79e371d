/** The one ajv instance (JSON Schema 2020-12 with formats): validators are compiled once, at registration. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';

// ajv-formats is CommonJS: under nodenext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

/** Shared ajv: all errors (one entry per field), no type coercion, unicode-aware patterns. */
export const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, unicodeRegExp: true });
addFormats(ajv, ['date', 'date-time', 'time', 'uuid', 'email', 'uri']);

const rfc3339DateTime = fullFormats['date-time'] as { validate: (value: string) => boolean };
// RFC 3339 allows a leap second (`23:59:60Z`); no JavaScript Date holds one, so an ORM would store
// an invalid date (SQLite and PostgreSQL fail, MariaDB writes NULL): a date-time must also parse.
ajv.addFormat('date-time', {
  type: 'string',
  validate: (value: string) => rfc3339DateTime.validate(value) && !Number.isNaN(Date.parse(value)),
});
