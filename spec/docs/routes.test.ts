/** docs/routes.md documents every code of the error catalogue, with its status. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../../lib/errors.js';
import { repoRoot } from '../support/paths.js';

const guide = readFileSync(join(repoRoot(), 'docs', 'routes.md'), 'utf8');

describe('docs/routes.md', () => {
  it('lists every error code with its status', () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      assert.match(guide, new RegExp(`\\| \`${code}\` \\| ${status} \\|`), code);
    }
  });
});
