/**
 * The models of the custom-authentication recipe, declared for the in-memory adapter so that the
 * recipe runs without a database; with MikroORM, declare the same entities with decorators.
 */
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { FrameworkModel, PROTECTED_FIELDS } from '../../../lib/index.js';

/** Table `writers`: the people who hold API keys. */
export class Writer extends FrameworkModel {
  // Only the server grants admin rights; no route accepts `is_admin` from a client.
  static readonly [PROTECTED_FIELDS]: readonly string[] = ['is_admin'];
}

/** Table `articles`: drafts until `published`, owned by a writer. */
export class Article extends FrameworkModel {}

/** A fresh in-memory adapter holding the two models. */
export function createArticlesAdapter(): MemoryAdapter {
  return new MemoryAdapter({
    models: [
      defineMemoryModel(Writer, {
        id: { type: 'integer', primary: true, generated: true },
        name: { type: 'string', maxLength: 100 },
        is_admin: { type: 'boolean', default: false },
        // SHA-256 of the writer's API key; hidden, so it never leaves the server.
        api_key_hash: { type: 'string', nullable: true, unique: true, hidden: true },
      }),
      defineMemoryModel(Article, {
        id: { type: 'integer', primary: true, generated: true },
        title: { type: 'string', maxLength: 200 },
        body: { type: 'text', nullable: true },
        published: { type: 'boolean', default: false },
        owner: { relation: { target: Writer } },
      }),
    ],
  });
}
