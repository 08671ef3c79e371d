/** The example application's model as a MikroORM user writes it: legacy decorators, explicit table names, posts with tags. */
import 'reflect-metadata';
import { Collection, type Opt } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/** A user of the blog; `hashed_password` never leaves the server. */
@Entity({ tableName: 'users' })
export class User {
  @PrimaryKey()
  id!: number;

  @Property({ unique: true })
  username!: string;

  @Property({ unique: true })
  email!: string;

  @Property({ type: 'integer', default: 18 })
  age: Opt<number> = 18;

  @Property({ hidden: true })
  hashed_password!: string;

  @Property({ type: 'boolean', default: false })
  is_admin: Opt<boolean> = false;

  // Public like the framework's user (AuthMixin's `verified`), so an embedded owner reads the same.
  @Property({ type: 'boolean', default: false })
  verified: Opt<boolean> = false;
}

/** A tag; posts carry several (table `post_tags`). */
@Entity({ tableName: 'tags' })
export class Tag {
  @PrimaryKey()
  id!: number;

  @Property({ unique: true })
  name!: string;
}

/** A post owned by a user (column `owner_id`). */
@Entity({ tableName: 'posts' })
export class Post {
  @PrimaryKey()
  id!: number;

  @Property()
  title!: string;

  @Property({ type: 'text', nullable: true })
  body?: string | null;

  // The API shows the owner as its id, whether or not the user happens to be loaded in the identity map.
  @ManyToOne(() => User, { serializer: (owner: User) => owner.id })
  owner!: User;

  // Ordered by id when populated, as every contender embeds them.
  @ManyToMany({
    entity: () => Tag,
    pivotTable: 'post_tags',
    joinColumn: 'post_id',
    inverseJoinColumn: 'tag_id',
    orderBy: { id: 'asc' },
  })
  tags = new Collection<Tag>(this);
}
