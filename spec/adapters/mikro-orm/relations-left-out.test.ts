/**
 * Which to-many relations `describe()` leaves out of `collections` rather than refusing the model:
 * one whose target has a composite key, a hidden one, and the inverse side MikroORM adds itself to
 * the target of a many-to-many declared on one side only. The others are described as usual.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

/** A composite key: the core cannot serve it, so no collection may point at it. */
@Entity()
class Course extends FrameworkModel {
  @PrimaryKey() code!: number;
  @PrimaryKey() term!: number;
}

/** The target of a many-to-many declared on `Student` only. */
@Entity()
class Club extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() name!: string;
}

// Declared before Mark and Note: their decorator metadata names the Student class.
@Entity()
class Student extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToMany(() => Course) courses = new Collection<Course>(this);
  @ManyToMany(() => Club) clubs = new Collection<Club>(this);
  @OneToMany(
    () => Mark,
    (mark) => mark.student,
  )
  marks = new Collection<Mark>(this);
  @OneToMany(
    () => Note,
    (note) => note.student,
    { hidden: true },
  )
  notes = new Collection<Note>(this);
}

@Entity()
class Mark extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Student) student!: Student;
}

@Entity()
class Note extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Student) student!: Student;
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter collections left out on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Course, Club, Mark, Note, Student],
        schema: 'create',
      });
    });
    after(async () => {
      await adapter?.close();
      await db?.drop();
    });

    it('describes the servable collections and leaves the others out', () => {
      assert.deepEqual(
        adapter.describe(Student).collections?.map((c) => [c.name, c.kind, c.writable]),
        [
          ['clubs', 'many-to-many', true],
          ['marks', 'one-to-many', false],
        ],
      );
      assert.equal(adapter.describe(Club).collections, undefined, 'the inverse side MikroORM added');
    });

    it('reads the links of the collections it describes', async () => {
      const session = adapter.openSession();
      const club = await adapter.create(session, Club, { name: 'chess' });
      const student = await adapter.create(session, Student, { clubs: [club.id] });
      const mark = await adapter.create(session, Mark, { student: student.id });
      const owners = [student.id as number];
      assert.deepEqual(await adapter.links?.(session, Student, 'clubs', owners, 10), [
        { owner: student.id, target: club.id },
      ]);
      assert.deepEqual(await adapter.links?.(session, Student, 'marks', owners, 10), [
        { owner: student.id, target: mark.id },
      ]);
    });
  });
}
