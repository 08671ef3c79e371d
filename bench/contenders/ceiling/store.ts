/** The data access of the ceiling contender: prepared statements behind one small interface per driver. */

/** A post as every contender serialises it. */
export interface PostRow {
  readonly id: number;
  readonly title: string;
  readonly body: string | null;
  readonly owner: number;
}

/** What authentication needs of a user. */
export interface AuthUser {
  readonly id: number;
  readonly hashed_password: string;
  readonly is_admin: boolean;
}

/** A user as an embedded owner shows it: its public fields. */
export interface PublicUser {
  readonly id: number;
  readonly username: string;
  readonly email: string;
  readonly age: number;
  readonly is_admin: boolean;
  readonly verified: boolean;
}

/** One tag of one post. */
export interface PostTagRow {
  readonly post_id: number;
  readonly id: number;
  readonly name: string;
}

/** Prepared-statement access to the benchmark schema. */
export interface Store {
  postById(id: number): Promise<PostRow | undefined>;
  /** A page in id order; the total only when asked (`count=false` skips it). */
  listPosts(limit: number, offset: number, withTotal: boolean): Promise<{ rows: PostRow[]; total?: number }>;
  createPost(title: string, body: string | null, owner: number): Promise<PostRow>;
  updatePost(id: number, title: string, body: string | null): Promise<void>;
  deletePost(id: number): Promise<void>;
  /** The public fields of these users, in one statement. */
  publicUsers(ids: readonly number[]): Promise<PublicUser[]>;
  /** The tags of these posts, by post then tag id, in one statement. */
  tagsOfPosts(postIds: readonly number[]): Promise<PostTagRow[]>;
  userById(id: number): Promise<AuthUser | undefined>;
  userByUsername(username: string): Promise<AuthUser | undefined>;
}
