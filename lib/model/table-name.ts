/** The default table name rule: class name → snake_case → plural (`BlogPost` → `blog_posts`). */
import pluralize from 'pluralize';

/** Converts `BlogPost`/`blogPost`/`HTTPRequest` to `blog_post`/`blog_post`/`http_request`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();
}

/** The plural snake_case table name for a model class name; only the last word is pluralised. */
export function defaultTableName(className: string): string {
  const words = snakeCase(className).split('_');
  const last = words.pop() ?? '';
  words.push(pluralize.plural(last));
  return words.join('_');
}
