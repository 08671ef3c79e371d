/**
 * What an application loads only when it uses it: `@node-rs/argon2` (argon2id is opt-in) and
 * koa2-swagger-ui (only for `/docs`). Checked in a fresh process, in Node's module cache.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

const library = new URL('../../../lib/index.js', import.meta.url).href;
const argon2Module = new URL('../../../lib/auth/argon2-module.js', import.meta.url).href;

/** Runs `body` in a new Node process after importing the library; answers what it printed. */
function inFreshProcess(body: string): string {
  const script = `
    import { createRequire } from 'node:module';
    const library = await import(${JSON.stringify(library)});
    const cache = createRequire(import.meta.url).cache;
    const loaded = (name) => Object.keys(cache).some((file) => file.includes('/node_modules/' + name + '/'));
    ${body}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

describe('modules loaded on first use', () => {
  it('does not load @node-rs/argon2 or koa2-swagger-ui when the library is imported', () => {
    const answer = inFreshProcess(
      `console.log(JSON.stringify([typeof library.Application, loaded('@node-rs/argon2'), loaded('koa2-swagger-ui'), loaded('@node-rs/bcrypt')]));`,
    );
    assert.deepEqual(JSON.parse(answer), ['function', false, false, true]);
  });

  it('loads @node-rs/argon2 when argon2 is asked for, and it works', () => {
    const answer = inFreshProcess(`
      const { argon2Module } = await import(${JSON.stringify(argon2Module)});
      const hash = argon2Module().hashSync('correct horse', { memoryCost: 1024, timeCost: 1, parallelism: 1 });
      console.log(JSON.stringify([loaded('@node-rs/argon2'), argon2Module().verifySync(hash, 'correct horse')]));`);
    assert.deepEqual(JSON.parse(answer), [true, true]);
  });
});
