/**
 * The relations recipe's models (docs/relations.md): a small library. Every relation kind the API
 * serves appears once — many-to-one (`Book.author`, `Book.genre`, `Review.book`, `Review.owner`),
 * one-to-many (`Author.books`, `Book.reviews`) and many-to-many (`Book.topics`, with its inverse
 * side `Topic.books`) — and `Author.email` is hidden, so it shows that embedded records keep
 * their own model's rules.
 */
import 'reflect-metadata';
import { Collection } from '@mikro-orm/core';
import { Entity, ManyToMany, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { AuthMixin, FrameworkModel } from '../../../lib/index.js';

/** Table `users`; `AuthMixin` adds `hashed_password` (hidden), `is_admin`, `verified` and the token columns. */
@Entity()
export class User extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  username!: string;

  @Property({ length: 254, unique: true })
  email!: string;
}

/** Table `authors`; `books` is a one-to-many: the inverse of `Book.author`. */
@Entity()
export class Author extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 100 })
  name!: string;

  @Property({ length: 254, nullable: true, hidden: true })
  email?: string | null; // never in a response, embedded or not

  @OneToMany(
    () => Book,
    (book) => book.author,
  )
  books = new Collection<Book>(this);
}

/** Table `genres`. */
@Entity()
export class Genre extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  name!: string;
}

/** Table `topics`; `books` is the inverse side of `Book.topics`: readable, not writable here. */
@Entity()
export class Topic extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  name!: string;

  @ManyToMany(
    () => Book,
    (book) => book.topics,
  )
  books = new Collection<Book>(this);
}

/** Table `books`. */
@Entity()
export class Book extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property({ length: 200 })
  title!: string;

  @ManyToOne(() => Author)
  author!: Author;

  @ManyToOne(() => Genre, { nullable: true, deleteRule: 'set null' })
  genre?: Genre | null;

  @ManyToMany(() => Topic) // the owning side: written as "topics": [1, 4]
  topics = new Collection<Topic>(this);

  @OneToMany(
    () => Review,
    (review) => review.book,
  )
  reviews = new Collection<Review>(this);
}

/** Table `reviews`: written by signed-in users; `owner` comes from the token. */
@Entity()
export class Review extends FrameworkModel {
  @PrimaryKey()
  id!: number;

  @Property()
  rating!: number;

  @Property({ length: 500 })
  text!: string;

  @ManyToOne(() => Book, { deleteRule: 'cascade' })
  book!: Book;

  @ManyToOne(() => User)
  owner!: User;
}

/** Every entity of the recipe. */
export const libraryEntities = [User, Author, Genre, Topic, Book, Review];
