import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { article } from '../../../lib/openapi/naming.js';

describe('article', () => {
  it('picks a or an by sound in the common cases of model names', () => {
    const cases: Record<string, string> = {
      user: 'a',
      User: 'a',
      unit: 'a',
      utility: 'a',
      euro: 'a',
      item: 'an',
      order: 'an',
      update: 'an',
      umbrella: 'an',
      hour: 'an',
      post: 'a',
      category: 'a',
    };
    for (const [word, expected] of Object.entries(cases)) assert.equal(article(word), expected, word);
  });
});
