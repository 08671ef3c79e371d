/** The next release's notes: the getting-started `Note` with one column added, `pinned`. */
import 'reflect-metadata';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { FrameworkModel } from '../../../lib/index.js';
import { User } from '../getting-started/entities.js';

/** Table `notes`, as before, plus `pinned` (defaulted, so existing rows get `false`). */
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

  @Property({ default: false })
  pinned: boolean & Opt = false;
}
