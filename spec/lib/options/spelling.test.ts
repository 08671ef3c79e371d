/**
 * The spelling table: snake_case names written once, camelCase aliases derived — in the types
 * users' code is checked against, and at run time (options read in either spelling, methods).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountOptions } from '../../../lib/auth/account/account-options.js';
import type { AuthRouterOptions } from '../../../lib/auth/options.js';
import type { CrudRouterOptions } from '../../../lib/crud/crud-options.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { aliasMethods, type CamelAliases, camelCase, SpellingTable } from '../../../lib/options/spelling.js';

interface Settings {
  readonly max_length?: number;
  readonly text_fields?: readonly string[];
  readonly strict?: boolean;
}

const table = new SpellingTable<Settings>({ max_length: true, text_fields: true, strict: true }, 'like.');

class Note extends FrameworkModel {}

describe('SpellingTable', () => {
  it('derives camelCase from snake_case', () => {
    assert.equal(camelCase('refresh_token_lifetime'), 'refreshTokenLifetime');
    assert.equal(camelCase('strict'), 'strict');
    assert.deepEqual([...table.names].sort(), [
      'maxLength',
      'max_length',
      'strict',
      'textFields',
      'text_fields',
    ]);
  });

  it('reads either spelling under the snake_case name', () => {
    assert.deepEqual(table.read({ maxLength: 5, strict: true }, 'Owner'), { max_length: 5, strict: true });
    assert.deepEqual(table.read({ max_length: 5, textFields: ['a'] }, 'Owner'), {
      max_length: 5,
      text_fields: ['a'],
    });
    // The same value under both spellings is no contradiction; `undefined` counts as not given.
    assert.deepEqual(table.read({ max_length: 5, maxLength: 5 }, 'Owner'), { max_length: 5 });
    assert.deepEqual(table.read({ max_length: undefined, maxLength: 7 }, 'Owner'), { max_length: 7 });
  });

  it('refuses both spellings with different values, naming both, and unknown names', () => {
    assert.throws(
      () => table.read({ max_length: 5, maxLength: 6 }, 'CrudRouter for Note'),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message ===
          'CrudRouter for Note: `like.max_length` and `like.maxLength` are the same option; give one.',
    );
    assert.throws(
      () => table.read({ max_lenght: 5 } as Settings, 'CrudRouter for Note'),
      (error: Error) =>
        error instanceof ConfigurationError &&
        error.message === 'CrudRouter for Note: unknown option `like.max_lenght`.',
    );
  });

  it('declares every alias in the public option types, with the same type', () => {
    const aliases: CamelAliases<Settings> = { maxLength: 1, textFields: ['a'] };
    // @ts-expect-error an alias has the type of its snake_case name
    const wrong: CamelAliases<Settings> = { maxLength: 'long' };
    const auth: AuthRouterOptions = { userModel: Note, tokenLifetime: 60, refreshTokenLifetime: 600 };
    // @ts-expect-error tokenLifetime is a number of seconds
    const badAuth: AuthRouterOptions = { tokenLifetime: '60' };
    const crud: CrudRouterOptions = {
      model: Note,
      ownerField: 'owner',
      includeLimit: 5,
      like: { maxLength: 9 },
    };
    const account: AccountOptions = { resetTokenTtl: 60, requireVerifiedEmail: true };
    assert.ok([aliases, wrong, auth, badAuth, crud, account].every((value) => typeof value === 'object'));
  });
});

describe('aliasMethods', () => {
  class Greeter {
    declare readonly sayHello: Greeter['say_hello'];
    constructor(readonly name: string) {}
    say_hello(greeting = 'hello'): string {
      return `${greeting}, ${this.name}`;
    }
  }
  aliasMethods(Greeter, { say_hello: true });

  it('adds a camelCase method that calls the snake_case one on the same instance', () => {
    const greeter = new Greeter('ada');
    assert.equal(greeter.sayHello(), 'hello, ada');
    assert.equal(greeter.sayHello('hi'), 'hi, ada');
    assert.equal(greeter.sayHello.name, 'sayHello');
    // Not an own enumerable key: an instance spreads and serialises as before.
    assert.deepEqual(Object.keys(greeter), ['name']);
  });
});
