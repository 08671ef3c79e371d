/**
 * The example blog's models: users (the auth plugin's user model), posts with their category, tags
 * and comments, categories and tags. Each relation kind the API serves appears once: many-to-one
 * (`Post.owner`, `Post.category`, `Comment.post`, `Comment.author`), one-to-many (`Post.comments`)
 * and many-to-many (`Post.tags`, owned by the post).
 */
import 'reflect-metadata';
import { Collection, type Opt } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin, FrameworkModel } from '../../lib/index.js';

/** Table `users`: identity and profile fields; `AuthMixin` adds `hashed_password` and `is_admin`. */
@Entity()
export class User extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 50, unique: true })
  username!: string;

  @Property({ type: 'string', length: 254, unique: true })
  email!: string;

  @Property({ type: 'integer', default: 18 })
  age: number & Opt = 18;
}

/** Table `categories`: open to everyone. */
@Entity()
export class Category extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100, unique: true })
  name!: string;
}

/** Table `labels` (explicit `__tablename__`): anyone reads, only admins write. */
@Entity()
export class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';

  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100, unique: true })
  name!: string;
}

/** Table `posts`: owned by the user who created it, in at most one category, with any tags. */
@Entity()
export class Post extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'text', nullable: true })
  body?: string | null;

  @ManyToOne(() => User)
  owner!: User;

  // Deleting a category leaves its posts uncategorised rather than refusing the delete.
  @ManyToOne(() => Category, { nullable: true, deleteRule: 'set null' })
  category?: Category | null;

  // The owning side: a client writes `"tags": [1, 4]`; the links live in the pivot table `posts_tags`.
  @ManyToMany(() => Tag)
  tags = new Collection<Tag>(this);

  // The inverse of `Comment.post`: read with `include=comments`, written through `/comments`.
  @OneToMany(
    () => Comment,
    (comment) => comment.post,
  )
  comments = new Collection<Comment>(this);
}

/** Table `comments`: written by a signed-in user (`author`, from the token) on a post. */
@Entity()
export class Comment extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'text' })
  body!: string;

  // Deleting a post deletes its comments (ON DELETE CASCADE in the schema).
  @ManyToOne(() => Post, { deleteRule: 'cascade' })
  post!: Post;

  // The ownership field: the many-to-one to the user model (detected by its name, `author`).
  @ManyToOne(() => User)
  author!: User;
}

/** Every entity of the example. */
export const blogEntities = [User, Post, Category, Tag, Comment];
