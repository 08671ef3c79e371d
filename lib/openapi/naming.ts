/** Names the document derives from models and paths: operationIds, summaries, tags. */

/** `blog_posts` / `blog-posts` / `BlogPost` / `/admin/{id}` → `BlogPosts` / `BlogPost` / `AdminId`. */
export function pascalCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `BlogPost` → `blog post`; `blog_posts` → `blog posts`: words for summaries. */
export function humanize(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .join(' ')
    .toLowerCase();
}

// Vowel letters that sound like a consonant ("a user", "a one-off") and silent h's ("an hour").
const CONSONANT_SOUND = /^(u[bcdfgjklmnprstvz][aeiou]|uni|use|usu|ure|eu|ewe|one|once)/i;
const VOWEL_SOUND = /^(hour|honest|honou?r|heir)/i;

/** `a` or `an` before a word, by how it sounds in the common cases (`a user`, `an item`, `an hour`). */
export function article(word: string): string {
  if (VOWEL_SOUND.test(word)) return 'an';
  if (CONSONANT_SOUND.test(word)) return 'a';
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** An operationId for an operation that has none: `post /admin/{id}/make-admin` → `postAdminIdMakeAdmin`. */
export function operationIdFromPath(method: string, path: string): string {
  return method.toLowerCase() + pascalCase(path);
}

/**
 * Hands out unique operationIds: the first claim of a name gets it, later claims get `name2`,
 * `name3`… Claims happen in registration order, so ids are stable for a given application.
 */
export class OperationIdAllocator {
  readonly #used = new Set<string>();

  /** A unique id, `preferred` when it is still free. */
  claim(preferred: string): string {
    let candidate = preferred;
    for (let n = 2; this.#used.has(candidate); n++) candidate = `${preferred}${n}`;
    this.#used.add(candidate);
    return candidate;
  }
}
