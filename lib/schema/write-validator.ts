/**
 * Validation of create and update bodies, compiled once per router from the model description:
 * fields a client may not write are dropped (or, with `strict`, named in a 422), the rest is
 * checked by ajv with one error entry per field.
 */
import type { ErrorObject } from 'ajv';
import { ApiError, type FieldError } from '../errors.js';
import type { ModelDescription, RawRecord } from '../types.js';
import { ajv } from './ajv.js';
import type { JsonSchema } from './json-schema.js';
import { createSchema, updateSchema } from './model-schemas.js';

/** Options of `compileWriteValidator`. */
export interface WriteValidatorOptions {
  readonly mode: 'create' | 'update';
  /** Refuse non-writable and unknown fields with 422 instead of dropping them. */
  readonly strict: boolean;
  /** Fields this router never lets a client write, on top of the model's own rules. */
  readonly readOnlyFields?: ReadonlySet<string>;
  /** Write-only input fields added by plugins (e.g. `password`). */
  readonly extraFields?: Readonly<Record<string, JsonSchema>>;
  /** Extra fields a create must include. */
  readonly extraRequired?: readonly string[];
}

/** Turns one ajv error into the field it concerns and a short message. */
function toFieldError(error: ErrorObject): FieldError {
  const base = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: string }).missingProperty ?? '');
    return { path: base === '' ? missing : `${base}.${missing}`, message: 'is required' };
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return { path: base, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { path: base, message: error.message ?? 'is invalid' };
}

/** Keeps the first error of each field, so a response has one entry per field. */
function onePerField(errors: readonly FieldError[]): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const error of errors) if (!seen.has(error.path)) seen.set(error.path, error);
  return [...seen.values()];
}

/** Compiles a validator; calling it returns a clean copy of the writable input or throws a 422 `ApiError`. */
export function compileWriteValidator(
  model: ModelDescription,
  options: WriteValidatorOptions,
): (body: unknown) => RawRecord {
  const schemaOptions = {
    ...(options.readOnlyFields === undefined ? {} : { readOnlyFields: options.readOnlyFields }),
    ...(options.extraFields === undefined ? {} : { extraFields: options.extraFields }),
    ...(options.extraRequired === undefined ? {} : { extraRequired: options.extraRequired }),
  };
  const schema =
    options.mode === 'create' ? createSchema(model, schemaOptions) : updateSchema(model, schemaOptions);
  const accepted = new Set(Object.keys(schema.properties ?? {}));
  const validate = ajv.compile(schema);

  return (body: unknown): RawRecord => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw ApiError.validation([{ path: '', message: 'must be a JSON object' }]);
    }
    const input = body as Record<string, unknown>;
    const clean: RawRecord = {};
    const refused: FieldError[] = [];
    for (const key of Object.keys(input)) {
      if (accepted.has(key)) {
        clean[key] = input[key];
      } else if (options.strict) {
        const known = model.fieldsByName.has(key);
        refused.push({ path: key, message: known ? 'is not writable' : `is not a field of ${model.name}` });
      }
    }
    const errors = validate(clean) ? [] : (validate.errors ?? []).map(toFieldError);
    const all = onePerField([...refused, ...errors]);
    if (all.length > 0) throw ApiError.validation(all);
    return clean;
  };
}
