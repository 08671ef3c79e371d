/** The getting-started models: users (the auth plugin's user model) and the notes they own. */
import 'reflect-metadata';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin, FrameworkModel } from '../../../lib/index.js';

/** Table `users`; `AuthMixin` adds `hashed_password` (hidden), `is_admin`, `verified` and the token columns. */
@Entity()
export class User extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  username!: string;

  @Property({ length: 254, unique: true })
  email!: string;

  @Property({ default: 18 })
  age: number & Opt = 18;
}

/** Table `notes`; `owner` is set from the caller's token on create. */
@Entity()
export class Note extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 200 })
  title!: string;

  @Property({ type: 'text', nullable: true })
  body?: string | null;

  @ManyToOne(() => User)
  owner!: User;
}
