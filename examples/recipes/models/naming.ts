/** Table names: the plural snake_case rule, `__tablename__`, and MikroORM's own `tableName`. */
import 'reflect-metadata';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { FrameworkModel } from '../../../lib/index.js';

/** Table and routes `users`. */
@Entity()
export class User extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  name!: string;
}

/** `people`: irregular plurals follow English. */
@Entity()
export class Person extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  name!: string;
}

/** `categories`. */
@Entity()
export class Category extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  name!: string;
}

/** `boxes`. */
@Entity()
export class Box extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  label!: string;
}

/** `blog_posts`: words are split at capitals, only the last one is made plural. */
@Entity()
export class BlogPost extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  title!: string;
}

/** `labels`: a static `__tablename__` always wins. */
@Entity()
export class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';

  @PrimaryKey()
  id!: number;

  @Property()
  name!: string;
}

/** `archived_items`: MikroORM's explicit `tableName` is respected too. */
@Entity({ tableName: 'archived_items' })
export class ArchivedItem extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  name!: string;
}
