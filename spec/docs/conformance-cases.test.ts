/**
 * The adapter author's guide states the number of conformance cases (twice, once as the recipe's
 * summary line) and names cases in its tables: both drifted before (64 in one place, 66 in the
 * other). They are checked against `conformanceCases` here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { conformanceCases } from '../../conformance/index.js';
import { repoRoot } from '../support/paths.js';

const guide = readFileSync(join(repoRoot(), 'docs', 'adapters.md'), 'utf8');

describe('docs/adapters.md and the conformance suite', () => {
  it('states the number of cases as conformanceCases has it', () => {
    const counts = [...guide.matchAll(/(\d+) named cases|: (\d+) passed, 0 skipped/g)].map((match) =>
      Number(match[1] ?? match[2]),
    );
    assert.equal(counts.length, 2, 'the count and the recipe summary line');
    for (const count of counts) assert.equal(count, conformanceCases.length);
  });

  it('names only cases that exist in its tables', () => {
    const named = [...guide.matchAll(/^\| `([a-z0-9$-]+)` \|/gm)].map((match) => match[1] as string);
    const cases: readonly string[] = conformanceCases;
    const tabled = named.filter((name) => name.includes('-') && !name.startsWith('$'));
    assert.ok(tabled.length >= 20, `the case tables were found (${tabled.length} names)`);
    for (const name of tabled) assert.ok(cases.includes(name), `"${name}" is a conformance case`);
  });
});
