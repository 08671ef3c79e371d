/** The MikroORM naming strategy of koa-model-api: plural snake_case tables, snake_case columns. */
import { UnderscoreNamingStrategy } from '@mikro-orm/core';
import { defaultTableName, snakeCase } from '../../lib/model/table-name.js';

/**
 * `User` → `users`, `BlogPost` → `blog_posts`, `Person` → `people`; an explicit `tableName` wins.
 * Join columns stay singular (`author_id`, `book_id`), as with MikroORM's own strategy.
 */
export class PluralTableNamingStrategy extends UnderscoreNamingStrategy {
  /** An explicit table name, else the core's plural snake_case rule (`BlogPost` → `blog_posts`). */
  override classToTableName(entityName: string, tableName?: string): string {
    return tableName ?? defaultTableName(entityName);
  }

  // The parent builds these from classToTableName, which would make them plural (`users_id`).
  /** `<singular snake_case entity>_<referenced column>`, e.g. `author_id`. */
  override joinKeyColumnName(
    entityName: string,
    referencedColumnName?: string,
    _composite?: boolean,
    tableName?: string,
  ): string {
    return `${tableName ?? snakeCase(entityName)}_${referencedColumnName || this.referenceColumnName()}`;
  }

  /** A many-to-many join table: `<source table>_<property>`, e.g. `posts_tags`. */
  override joinTableName(
    sourceEntity: string,
    _targetEntity: string,
    propertyName?: string,
    tableName?: string,
  ): string {
    return `${tableName ?? defaultTableName(sourceEntity)}_${snakeCase(propertyName ?? '')}`;
  }
}
