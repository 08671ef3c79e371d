/** docs/authentication.md and the plugin agree: every option, the default limits, the admin flag order. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ADMIN_FLAGS } from '../../../lib/auth/admin-flag.js';
import { AUTH_ROUTER_OPTION_NAMES } from '../../../lib/auth/options.js';
import { DEFAULT_THROTTLE_LIMITS } from '../../../lib/auth/throttle/login-throttle.js';
import { MAX_VERIFIED_TOKENS } from '../../../lib/auth/verified-tokens.js';
import { repoRoot } from '../../support/paths.js';

const guide = readFileSync(join(repoRoot(), 'docs', 'authentication.md'), 'utf8');

describe('docs/authentication.md', () => {
  it('documents every option in its table, and every camelCase alias exists', () => {
    const snake = [...AUTH_ROUTER_OPTION_NAMES].filter((name) => !/[A-Z]/.test(name));
    for (const name of snake) assert.match(guide, new RegExp(`^\\| \`${name}\` \\|`, 'm'), name);
    for (const name of snake.filter((n) => n.includes('_'))) {
      const camel = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
      assert.ok(AUTH_ROUTER_OPTION_NAMES.has(camel), camel);
    }
  });

  it('states the default throttle limits', () => {
    const { username, address, register } = DEFAULT_THROTTLE_LIMITS;
    assert.match(
      guide,
      new RegExp(`\`throttle.username\` \\| ${username.attempts} attempts per ${username.window} s`),
    );
    assert.match(
      guide,
      new RegExp(`\`throttle.register\` \\| ${register.attempts} per ${register.window} s`),
    );
    assert.match(
      guide,
      new RegExp(
        `per client address \\(\`ctx.ip\`\\) \\| ${address.attempts} failed attempts per ${address.window} s`,
      ),
    );
  });

  it('states how many verified tokens a router remembers', () => {
    assert.match(
      guide,
      new RegExp(`bounded memory of ${MAX_VERIFIED_TOKENS.toLocaleString('en-US')} tokens`),
    );
  });

  it('lists the admin flags in discovery order', () => {
    const listed = [...guide.matchAll(/^\d\. `(is_[a-z]+)`$/gm)].map((match) => match[1]);
    assert.deepEqual(listed, [...ADMIN_FLAGS]);
  });
});
