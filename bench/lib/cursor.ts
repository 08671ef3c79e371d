/**
 * The `after` cursor of the framework's posts list at a given depth, made with the framework's own
 * encoder (the cursor is opaque to clients, not to the bench): it saves walking 900,000 rows to
 * reach a deep page. The pages scenario checks that the page it opens is the offset page it stands for.
 */
import { buildModelDescription } from '../../lib/model/describe.js';
import { FrameworkModel } from '../../lib/model/framework-model.js';
import { cursorShape, encodeCursor } from '../../lib/query/cursor.js';
import type { SortKey } from '../../lib/types.js';

class Post extends FrameworkModel {}

const field = (name: string, type: 'integer' | 'string' | 'text', nullable = false) => ({
  name,
  type,
  nullable,
  required: !nullable,
  hasDefault: false,
  unique: false,
  hidden: false,
  primary: name === 'id',
  generated: name === 'id',
});

// Only the model name and the types of the sort keys enter a cursor.
const post = buildModelDescription({
  model: Post,
  name: 'Post',
  primaryKeys: ['id'],
  fields: [
    field('id', 'integer'),
    field('title', 'string'),
    field('body', 'text', true),
    field('owner', 'integer'),
  ],
});
const BY_ID: readonly SortKey[] = [{ field: 'id', direction: 'asc' }];

/** The cursor of the default sort (`id` ascending, no filter) that continues after post `id`. */
export function cursorAfterPost(id: number): string {
  return encodeCursor(post, cursorShape(post, BY_ID, []), BY_ID, { id });
}
