/**
 * One spelling table for options and methods: the specification's snake_case names are written
 * once, and their camelCase aliases (`user_model` → `userModel`) are derived from them, in the
 * types and at run time, instead of being written in pairs.
 */
import { ConfigurationError } from '../errors.js';

/** `user_model` → `userModel`, as a type. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/**
 * The camelCase aliases of an options type: each name with an underscore again under its
 * camelCase spelling, with the same type and documentation; an alias is always optional.
 */
export type CamelAliases<T> = {
  readonly [K in keyof T as K extends `${string}_${string}` ? CamelCase<K> : never]+?: T[K];
};

/** `user_model` → `userModel`. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The option names of one options object, snake_case as the specification spells them; `read`
 * takes an object in either spelling and returns it under the snake_case names.
 * @example
 * const LIKE = new SpellingTable<LikeSettings>({ max_length: true, max_wildcards: true, text_fields: true }, 'like.');
 * LIKE.read({ maxLength: 50 }, 'CrudRouter for Post'); // { max_length: 50 }
 */
export class SpellingTable<T extends object> {
  /** Every accepted name: the snake_case ones and their camelCase aliases. */
  readonly names: ReadonlySet<string>;
  /** The snake_case name of each accepted spelling. */
  private readonly snakeOf: ReadonlyMap<string, string>;

  /**
   * @param names every snake_case name of `T` (a record, so that the compiler checks none is missing)
   * @param path written before a name in messages, e.g. `like.`
   */
  constructor(
    names: Readonly<Record<keyof T & string, true>>,
    private readonly path = '',
  ) {
    const snakeOf = new Map<string, string>();
    for (const name of Object.keys(names)) {
      snakeOf.set(name, name);
      snakeOf.set(camelCase(name), name);
    }
    this.snakeOf = snakeOf;
    this.names = new Set(snakeOf.keys());
  }

  /**
   * The options under their snake_case names. An unknown name, or one option given under both
   * spellings with different values, is a `ConfigurationError` (naming both) that `owner` begins.
   */
  read(options: Readonly<T & CamelAliases<T>>, owner: string): T {
    const read: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(options)) {
      const snake = this.snakeOf.get(name);
      if (snake === undefined) {
        throw new ConfigurationError(`${owner}: unknown option \`${this.path}${name}\`.`);
      }
      // An option given as `undefined` counts as not given, under either spelling.
      if (value === undefined) continue;
      const earlier = read[snake];
      if (earlier !== undefined && earlier !== value) {
        throw new ConfigurationError(
          `${owner}: \`${this.path}${snake}\` and \`${this.path}${camelCase(snake)}\` are the same option; give one.`,
        );
      }
      read[snake] = value;
    }
    return read as T;
  }
}

/** The snake_case method names of a class (`register_routes`, …). */
export type SnakeMethods<C> = {
  [K in keyof C & string]: K extends `${string}_${string}`
    ? C[K] extends (...args: never[]) => unknown
      ? K
      : never
    : never;
}[keyof C & string];

/** The snake_case methods of a class whose camelCase alias the class declares. */
export type AliasedMethods<C> = {
  [K in SnakeMethods<C>]: CamelCase<K> extends keyof C ? K : never;
}[SnakeMethods<C>];

/**
 * Gives a class's prototype the camelCase alias of each snake_case method named: the alias calls
 * the snake_case method, so a subclass overriding one changes both. The class declares each alias
 * (`declare readonly registerRoutes: X['register_routes']`) so that it type-checks; `names` is a
 * record so that the compiler checks it names every declared alias and nothing else.
 */
export function aliasMethods<C extends object>(
  target: abstract new (...args: never[]) => C,
  names: Readonly<Record<AliasedMethods<C>, true>>,
): void {
  for (const name of Object.keys(names) as AliasedMethods<C>[]) {
    const alias = camelCase(name);
    // A function of its own (named after the alias) rather than the same function object, so
    // that `this[name]` is looked up per call.
    const forward = {
      [alias](this: C, ...args: unknown[]): unknown {
        const method = this[name] as (...args: unknown[]) => unknown;
        return method.apply(this, args);
      },
    }[alias];
    Object.defineProperty(target.prototype, alias, {
      value: forward,
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}
