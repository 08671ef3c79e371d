/**
 * The refresh-token model of the session tests, declared as the guide tells users to: a string
 * primary key and `RefreshTokenMixin` for the other columns.
 */
import 'reflect-metadata';
import { Entity, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { RefreshTokenMixin } from '../../../../lib/auth/sessions/refresh-token-model.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';

/** Table `refresh_tokens`. */
@Entity()
export class RefreshToken extends RefreshTokenMixin(FrameworkModel) {
  @PrimaryKey({ type: 'string', length: 64 })
  id!: string;
}
