/**
 * Checks responses against an OpenAPI document: the status is documented for the operation, the
 * media type too, and the body is valid against the documented schema (ajv, JSON Schema 2020-12);
 * no 5xx and no password hash, whatever the document says.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import type { HttpResponse } from './client.js';
import { hasMember, PASSWORD_HASH } from './invariants.js';
import { asJson, type Json, type Operation, resolve } from './openapi-document.js';

// ajv-formats is CommonJS: under nodenext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

const BASE = 'urn:kma:openapi';

/** Rewrites the document's local `$ref`s to absolute ones under `BASE`. */
function absolute(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolute);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#')
        ? `${BASE}${inner}`
        : absolute(inner);
  }
  return out;
}

/** Validates responses against the document: the status is documented and the body fits its schema. */
export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<object, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: BASE, components: doc.components } as Json);
  }

  /** What is wrong with the response, or an empty list. */
  problems(operation: Operation, response: HttpResponse): string[] {
    const problems: string[] = [];
    if (response.status >= 500) problems.push(`server error ${response.status}`);
    if (PASSWORD_HASH.test(response.text) || hasMember(response.json, 'hashed_password'))
      problems.push('a password hash is in the body');
    const responses = asJson(operation.operation.responses);
    const documented = responses[String(response.status)];
    if (documented === undefined) {
      problems.push(
        `status ${response.status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
      );
      return problems;
    }
    const content = asJson(resolve(this.doc, documented).content);
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) {
      if (response.text !== '')
        problems.push(`status ${response.status} is documented without a body, but one came`);
      return problems;
    }
    const type =
      String(response.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const media = content[type];
    if (media === undefined) {
      problems.push(
        `content type "${type}" is not documented for ${response.status} (documented: ${mediaTypes.join(', ')})`,
      );
      return problems;
    }
    const schema = asJson(media).schema;
    if (schema === undefined) return problems;
    const validate = this.validator(schema as object);
    if (!validate(response.json)) {
      problems.push(
        `body does not match the documented ${response.status} schema: ${this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 600)}`,
      );
    }
    return problems;
  }

  private validator(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (validate === undefined) {
      validate = this.ajv.compile(absolute(schema) as Json);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}
