/** The one ajv instance (JSON Schema 2020-12 with formats): validators are compiled once, at registration. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under nodenext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

/** Shared ajv: all errors (one entry per field), no type coercion, unicode-aware patterns. */
export const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, unicodeRegExp: true });
addFormats(ajv, ['date', 'date-time', 'time', 'uuid', 'email', 'uri']);
