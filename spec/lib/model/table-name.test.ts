import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultTableName, snakeCase } from '../../../lib/model/table-name.js';

describe('table names', () => {
  it('derives plural snake_case names, irregular plurals included', () => {
    const cases: Record<string, string> = {
      User: 'users',
      BlogPost: 'blog_posts',
      Category: 'categories',
      Person: 'people',
      Box: 'boxes',
      Tag: 'tags',
      HTTPRequest: 'http_requests',
      Status: 'statuses',
    };
    for (const [name, table] of Object.entries(cases)) assert.equal(defaultTableName(name), table, name);
  });

  it('converts camel and pascal case to snake case', () => {
    assert.equal(snakeCase('blogPost'), 'blog_post');
    assert.equal(snakeCase('APIKey'), 'api_key');
  });
});
