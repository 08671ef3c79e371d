/**
 * docs/security.md stays true to the tests: every test it cites exists under that name in the
 * linked file, and every case of the adversarial catalogue backs some promise of the page.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';
import { catalogue } from './catalogue.js';

const PAGE = join(repoRoot(), 'docs', 'security.md');
const page = readFileSync(PAGE, 'utf8');

/** The (file, test name) pairs cited in the proof column of the page's tables. */
function citations(): { file: string; name: string }[] {
  const cited: { file: string; name: string }[] = [];
  for (const line of page.split('\n')) {
    if (!line.startsWith('| ')) continue;
    // The proof is the last cell; what follows " — " names the file to fix, not a test.
    const proof = (line.split(' | ').pop() ?? '').split(' — ')[0] ?? '';
    const parts = proof.split(/\[[^\]]+\]\(([^)]+)\)/);
    // split() with a capture group alternates text and link targets: text, target, text, target, text…
    for (let index = 1; index < parts.length; index += 2) {
      const file = resolve(dirname(PAGE), parts[index] as string);
      for (const match of (parts[index + 1] ?? '').matchAll(/`([^`]+)`/g))
        cited.push({ file, name: match[1] as string });
    }
  }
  return cited;
}

describe('docs/security.md', () => {
  it('cites only tests that exist, under their names, in the linked files', () => {
    const cited = citations();
    assert.ok(cited.length >= 80, `${cited.length} citations`);
    const caseNames = new Set(catalogue.map((entry) => entry.name));
    for (const { file, name } of cited) {
      assert.ok(existsSync(file), `${file} exists`);
      if (file.includes(join('spec', 'security', 'cases'))) {
        assert.ok(caseNames.has(name), `catalogue case "${name}" (cited for ${file})`);
      } else {
        assert.ok(readFileSync(file, 'utf8').includes(name), `"${name}" is a test in ${file}`);
      }
    }
  });

  it('backs a promise with every case of the catalogue but the controls', () => {
    const cited = new Set(citations().map(({ name }) => name));
    const missing = catalogue
      .filter((entry) => !entry.name.startsWith('control:') && !cited.has(entry.name))
      .map((entry) => entry.name);
    assert.deepEqual(missing, []);
  });
});
