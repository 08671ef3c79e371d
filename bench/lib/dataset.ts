/** The seeded data set every contender serves: who owns what, and the passwords the load generator logs in with. */
import { hash } from '@node-rs/bcrypt';

/** How big the seed is. */
export interface SeedSize {
  readonly users: number;
  readonly postsPerUser: number;
}

/** The bcrypt cost of the seeded hashes; every contender verifies at this cost. */
export const BCRYPT_COST = 10;
// Hashing is ~70 ms per user at cost 10: a few distinct passwords keep seeding fast and logins equally costly.
const DISTINCT_PASSWORDS = 4;
const FILLER =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.';
/** Tags in the seed; each post carries up to three of them (the include scenario's many-to-many). */
export const TAG_COUNT = 50;
/** Post `id` carries `id % TAGS_CYCLE` tags: 0 to 3, so some posts embed an empty list. */
export const TAGS_CYCLE = 4;
/** The step between a post's tags: tag ids `(id + k × TAG_STEP) % TAG_COUNT + 1` never repeat for k < 3. */
export const TAG_STEP = 17;

/** A seeded user row. */
export interface UserSeed {
  readonly id: number;
  readonly username: string;
  readonly email: string;
  readonly age: number;
  readonly hashed_password: string;
}

/** A seeded post row. */
export interface PostSeed {
  readonly id: number;
  readonly title: string;
  readonly body: string | null;
  readonly owner_id: number;
}

/** A seeded tag row. */
export interface TagSeed {
  readonly id: number;
  readonly name: string;
}

/** The deterministic content of the seed, shared by the seeders of every backend and by the scenarios. */
export class Dataset {
  readonly users: number;
  readonly posts: number;
  readonly #hashes: readonly string[];

  private constructor(size: SeedSize, hashes: readonly string[]) {
    this.users = size.users;
    this.posts = size.users * size.postsPerUser;
    this.#hashes = hashes;
  }

  /** Hashes the passwords once (bcrypt, cost 10) and describes the seed. */
  static async create(size: SeedSize): Promise<Dataset> {
    const hashes: string[] = [];
    for (let i = 0; i < DISTINCT_PASSWORDS; i++)
      hashes.push(await hash(passwordFor(i), { cost: BCRYPT_COST }));
    return new Dataset(size, hashes);
  }

  /** The username of user `id` (1-based). */
  username(id: number): string {
    return `user${id}`;
  }

  /** The clear-text password of user `id`. */
  password(id: number): string {
    return passwordFor(id % DISTINCT_PASSWORDS);
  }

  /** The row of user `id`. */
  user(id: number): UserSeed {
    return {
      id,
      username: this.username(id),
      email: `user${id}@bench.test`,
      age: 18 + (id % 60),
      hashed_password: this.#hashes[id % DISTINCT_PASSWORDS] as string,
    };
  }

  /** The row of post `id`: owners go round-robin, one post in seven has no body. */
  post(id: number): PostSeed {
    return {
      id,
      title: `Post ${id}`,
      body: id % 7 === 0 ? null : `Body of post ${id}. ${FILLER}`,
      owner_id: ((id - 1) % this.users) + 1,
    };
  }

  /** The row of tag `id` (1-based, up to `TAG_COUNT`). */
  tag(id: number): TagSeed {
    return { id, name: `tag${id}` };
  }

  /** The ids of the tags post `id` carries, ascending (the seeders of both backends follow this rule). */
  tagsOf(postId: number): number[] {
    const ids: number[] = [];
    for (let k = 0; k < postId % TAGS_CYCLE; k++) ids.push(((postId + k * TAG_STEP) % TAG_COUNT) + 1);
    return ids.sort((a, b) => a - b);
  }

  /** The ids of the seeded posts user `id` owns. */
  postsOwnedBy(id: number): number[] {
    const ids: number[] = [];
    for (let post = id; post <= this.posts; post += this.users) ids.push(post);
    return ids;
  }
}

function passwordFor(index: number): string {
  return `bench-password-${index}`;
}
