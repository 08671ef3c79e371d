/** The `$like` pattern language shared by every adapter: tokens, SQL rendering, and what the caps count. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { likeCost, parseLikePattern, toSqlLike } from '../../../lib/query/like-pattern.js';

describe('like patterns', () => {
  it('reads % and _ as wildcards and a backslash as "the next character is literal"', () => {
    assert.deepEqual(parseLikePattern('a%%b_\\%\\_\\\\\\x'), [
      { kind: 'text', text: 'a' },
      { kind: 'any' },
      { kind: 'text', text: 'b' },
      { kind: 'one' },
      { kind: 'text', text: '%_\\x' },
    ]);
    assert.deepEqual(parseLikePattern('a\\'), [{ kind: 'text', text: 'a\\' }]);
  });

  it('renders SQL LIKE with any escape character, escaping only what needs it', () => {
    assert.equal(toSqlLike(parseLikePattern('50\\% off!_%'), '!'), '50!% off!!_%');
    assert.equal(toSqlLike(parseLikePattern('a\\\\b'), '\\'), 'a\\\\b');
  });

  it('counts characters (code points, escapes included) and unescaped wildcards', () => {
    assert.deepEqual(likeCost('%é😀_\\%\\_'), { length: 8, wildcards: 2, danglingEscape: false });
    assert.deepEqual(likeCost('ab\\'), { length: 3, wildcards: 0, danglingEscape: true });
    assert.deepEqual(likeCost('ab\\\\'), { length: 4, wildcards: 0, danglingEscape: false });
  });
});
