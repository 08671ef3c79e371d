/** `runConformanceSuite` refuses skips it cannot honour before registering any test. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConformanceCaseName,
  conformanceCases,
  runConformanceSuite,
} from '../../../conformance/index.js';
import { memoryConformanceTarget } from './conformance-models.js';

describe('runConformanceSuite options', () => {
  it('refuses a skip without a reason', () => {
    const skip = { 'list-filter-like': ' ' } as Partial<Record<ConformanceCaseName, string>>;
    assert.throws(() => runConformanceSuite({ ...memoryConformanceTarget, skip }), /needs a reason/);
  });

  it('refuses a skip of a case that does not exist', () => {
    const skip = { 'list-filter-liek': 'typo' } as unknown as Partial<Record<ConformanceCaseName, string>>;
    assert.throws(
      () => runConformanceSuite({ ...memoryConformanceTarget, skip }),
      /unknown case "list-filter-liek"/,
    );
  });

  it('names every case once', () => {
    assert.equal(new Set(conformanceCases).size, conformanceCases.length);
    assert.ok(conformanceCases.every((name) => /^[a-z0-9]+(-[a-z0-9$]+)*$/.test(name)));
  });
});
