/** The example application's model written for koa-model-api: the user model carries `AuthMixin`; posts carry tags. */
import 'reflect-metadata';
import { Collection, type Opt } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
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

/** A tag; posts carry several (table `post_tags`). */
@Entity({ tableName: 'tags' })
export class Tag extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ unique: true })
  name!: string;
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

  // The seeded pivot table, named as in the hand-written app; `include=tags` embeds them by id.
  @ManyToMany({
    entity: () => Tag,
    pivotTable: 'post_tags',
    joinColumn: 'post_id',
    inverseJoinColumn: 'tag_id',
  })
  tags = new Collection<Tag>(this);
}
