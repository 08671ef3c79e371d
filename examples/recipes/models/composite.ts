/** A composite primary key: valid for MikroORM, refused by `CrudRouter` at registration. */
import 'reflect-metadata';
import { Entity, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { FrameworkModel } from '../../../lib/index.js';

/** Table `enrollments`, keyed by two columns. */
@Entity()
export class Enrollment extends FrameworkModel {
  @PrimaryKey()
  student!: number;

  @PrimaryKey()
  course!: number;
}
