/** The example application's model written for koa-model-api: the user model carries `AuthMixin`. */
import 'reflect-metadata';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin, FrameworkModel } from '../../../lib/index.js';

/** A user; `AuthMixin` adds `hashed_password` (hidden) and `is_admin`. */
@Entity({ tableName: 'users' })
export class User extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ unique: true })
  username!: string;

  @Property({ unique: true })
  email!: string;

  @Property({ type: 'integer', default: 18 })
  age: Opt<number> = 18;
}

/** A post owned by a user (column `owner_id`, the ownership field). */
@Entity({ tableName: 'posts' })
export class Post extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  title!: string;

  @Property({ type: 'text', nullable: true })
  body?: string | null;

  @ManyToOne(() => User)
  owner!: User;
}
