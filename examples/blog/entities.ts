/** The example blog's models: users (the auth plugin's user model), posts, categories and tags. */
import 'reflect-metadata';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
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

/** Table `posts`: owned by the user who created it. */
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

/** Every entity of the example. */
export const blogEntities = [User, Post, Category, Tag];
