/**
 * The OpenAPI documents the framework serves pass the linters API teams run on them: Spectral's
 * `spectral:oas` ruleset and Redocly's `recommended` ruleset, both from their npm packages, report
 * no error. The only warnings left are the ones that need facts only the application's owner has
 * (its license and contact), plus a component a test suite still reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { type BlogApp, createBlogApp } from '../../../examples/blog/app.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import type { CrudRoutesDoc } from '../../../lib/openapi/types.js';
import type { ModelClass } from '../../../lib/types.js';
import {
  crudDoc,
  gadgetDescription,
  PASSWORD_SCHEME,
  personDescription,
  placeDescription,
  policy,
  SCHEME,
} from './fixtures.js';
import { Author, Book, Category, libraryDocs, Tag } from './relation-fixtures.js';

/** One finding of either linter, reduced to what an assertion message needs. */
interface Finding {
  readonly linter: 'redocly' | 'spectral';
  readonly severity: 'error' | 'warn' | 'info' | 'hint';
  readonly rule: string;
  readonly where: string;
  readonly message: string;
}

/** Warnings that only the application can silence, by naming its license and contact. */
const OWNER_WARNINGS = new Set(['redocly info-license', 'spectral info-contact']);
/** `FilterOperators` stays in `components` while spec/security's fuzzer reads it. */
const UNUSED_FILTER_OPERATORS = new Set(['redocly no-unused-components', 'spectral oas3-unused-component']);

/** Runs Redocly's `recommended` ruleset on a document. */
async function redocly(text: string): Promise<Finding[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, absoluteRef: '/openapi.json', config });
  return problems.map((problem) => ({
    linter: 'redocly',
    severity: problem.severity === 'error' ? 'error' : 'warn',
    rule: problem.ruleId,
    where: problem.location[0]?.pointer ?? '',
    message: problem.message,
  }));
}

/** Spectral's severities, by their numeric code. */
const SPECTRAL_SEVERITY = ['error', 'warn', 'info', 'hint'] as const;

/** Runs Spectral's `spectral:oas` ruleset (its recommended rules, as `extends: spectral:oas` does). */
async function spectral(text: string): Promise<Finding[]> {
  const linter = new spectralCore.Spectral();
  linter.setRuleset({ extends: [[oas as never, 'recommended']] });
  const results = await linter.run(new spectralCore.Document(text, spectralParsers.Json, '/openapi.json'));
  return results.map((result) => ({
    linter: 'spectral',
    severity: SPECTRAL_SEVERITY[result.severity] ?? 'error',
    rule: String(result.code),
    where: result.path.join('.'),
    message: result.message,
  }));
}

/** Both linters' findings on a document. */
async function lint(document: unknown): Promise<Finding[]> {
  const text = JSON.stringify(document, null, 2);
  return [...(await redocly(text)), ...(await spectral(text))];
}

/** Asserts no error at all, and no warning beyond the allowed ones. */
function assertClean(findings: readonly Finding[], allowed: ReadonlySet<string>): void {
  const show = (list: readonly Finding[]) =>
    list.map((f) => `${f.linter} ${f.severity} ${f.rule} at ${f.where}: ${f.message}`).join('\n');
  const errors = findings.filter((finding) => finding.severity === 'error');
  assert.deepEqual(errors, [], show(errors));
  const unexpected = findings.filter((finding) => !allowed.has(`${finding.linter} ${finding.rule}`));
  assert.deepEqual(unexpected, [], show(unexpected));
}

describe('OpenAPI lint: Spectral spectral:oas and Redocly recommended', () => {
  let blog: BlogApp;

  before(async () => {
    blog = await createBlogApp({
      host: '127.0.0.1',
      port: 0,
      databaseUrl: 'sqlite::memory:',
      jwtSecret: 'a lint test secret of at least thirty-two bytes',
      admin: undefined,
      production: false,
    });
  });

  after(async () => {
    await blog?.app.close();
  });

  it('the example application document has no lint error', async () => {
    assert.ok(blog.adapter instanceof MikroOrmAdapter);
    const findings = await lint(blog.app.openapi.document());
    assertClean(findings, new Set([...OWNER_WARNINGS, ...UNUSED_FILTER_OPERATORS]));
  });

  it('a document with embedded objects, policies, prefixes and a license has no lint finding but the fuzzer component', async () => {
    const registry = new OpenApiRegistry({
      title: 'Fixtures',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'API team', email: 'api@example.org' },
    });
    registry.addSecurityScheme(SCHEME, PASSWORD_SCHEME);
    registry.addCrud(
      crudDoc(personDescription(), {
        secure: true,
        securityScheme: SCHEME,
        policies: { PUT: policy('owner_or_admin', 'Only the owner of the record or an admin.') },
      }),
    );
    registry.addCrud(crudDoc(gadgetDescription(), { prefix: '/api', strict: true }));
    registry.addCrud(crudDoc(placeDescription()));
    assertClean(await lint(registry.document()), UNUSED_FILTER_OPERATORS);
  });

  it('a document with relations (include, key-or-record fields, collections, related read rules) has no lint finding but the fuzzer component', async () => {
    const registry = new OpenApiRegistry({
      title: 'Library',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'API team', email: 'api@example.org' },
    });
    registry.addSecurityScheme(SCHEME, PASSWORD_SCHEME);
    const rules = new Map<ModelClass, Partial<CrudRoutesDoc>>([
      [Category, { policies: { GET: policy('members_only', 'Only members.', true, SCHEME) } }],
      [Tag, { secure: true, securityScheme: SCHEME }],
    ]);
    for (const doc of libraryDocs([Book, Author, Category, Tag], rules)) registry.addCrud(doc);
    assertClean(await lint(registry.document()), UNUSED_FILTER_OPERATORS);
  });
});
