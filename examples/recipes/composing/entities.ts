/** The models added to the existing app: users and the bookmarks they own. */
import 'reflect-metadata';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin, FrameworkModel } from '../../../lib/index.js';

/** Table `users`. */
@Entity()
export class User extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  username!: string;
}

/** Table `bookmarks`, owned by the user who created it. */
@Entity()
export class Bookmark extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 2000 })
  url!: string;

  @ManyToOne(() => User)
  owner!: User;
}
