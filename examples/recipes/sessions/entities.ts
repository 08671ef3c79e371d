/**
 * The models of the sessions recipe: the user model and the refresh-token model the adapter store
 * writes to. Add both to the ORM's entities; the refresh-token table is created like the others.
 */
import 'reflect-metadata';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { RefreshTokenMixin } from '../../../lib/auth/index.js';
import { AuthMixin, FrameworkModel } from '../../../lib/index.js';

@Entity()
export class User extends AuthMixin(FrameworkModel) {
  // table "users"
  @PrimaryKey({ type: 'integer' }) id!: number;
  @Property({ type: 'string', length: 50, unique: true }) username!: string;
}

@Entity()
export class RefreshToken extends RefreshTokenMixin(FrameworkModel) {
  // table "refresh_tokens"
  @PrimaryKey({ type: 'string', length: 64 }) id!: string;
}
