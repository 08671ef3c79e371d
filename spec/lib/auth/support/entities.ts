/**
 * Entities of the auth suite: the reference `User` (is_admin from the mixin), a `Post` owned by a
 * user, an open `Tag`, and two user models that declare their own admin flag (`is_staff`,
 * `is_superuser`) and so get no `is_admin` column.
 */
import 'reflect-metadata';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin } from '../../../../lib/auth/auth-mixin.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';

/** Table `users`. */
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

/** Table `posts`: `owner` is the ownership field. */
@Entity()
export class Post extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  title!: string;

  @ManyToOne(() => User)
  owner!: User;
}

/** Table `tags`: readable by anyone, written by admins (an unsecured router with policies). */
@Entity()
export class Tag extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 50, unique: true })
  name!: string;
}

/** Table `staff_members`: declares `is_staff`, which is its admin flag. */
@Entity()
export class StaffMember extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 50, unique: true })
  username!: string;

  @Property({ type: 'boolean', default: false })
  is_staff: boolean & Opt = false;
}

/** Table `superusers`: declares `is_superuser`, which is its admin flag. */
@Entity()
export class Superuser extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 50, unique: true })
  username!: string;

  @Property({ type: 'boolean', default: false })
  is_superuser: boolean & Opt = false;
}

/** Table `retired_users`: `readonly: true`, so MikroORM would never store a registration. */
@Entity({ readonly: true, tableName: 'retired_users' })
export class RetiredUser extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 50, unique: true })
  username!: string;
}

/** Table `login`: a model whose routes would be the auth plugin's `/login`. */
@Entity({ tableName: 'login' })
export class LoginAttempt extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;
}

/** Every entity of the suite. */
export const authEntities = [User, Post, Tag, StaffMember, Superuser, RetiredUser, LoginAttempt];
