/**
 * A user's project built with `declaration: true` compiles: every type the compiler has to write
 * into the user's .d.ts files (the base class of `class User extends AuthMixin(FrameworkModel)`)
 * is reachable from the entry point the user imports. The project is getting-started's
 * `entities.ts`, importing only the root `koa-model-api` as the guide does, compiled by TypeScript 7
 * and TypeScript 5 against the package by its name (`node_modules/koa-model-api` links to this
 * repository, so its `exports` and built declarations are what the compiler reads).
 * scripts/ci-package.mjs checks the same on the packed tarball.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';

const root = repoRoot();

/** The guide's entities with the package's name in place of the repository's relative paths. */
function guideEntities(): string {
  const source = readFileSync(join(root, 'examples', 'recipes', 'getting-started', 'entities.ts'), 'utf8');
  const rewritten = source.replace("'../../../lib/index.js'", "'koa-model-api'");
  assert.notEqual(rewritten, source, 'entities.ts no longer imports ../../../lib/index.js');
  return rewritten;
}

describe('a user project compiled with declaration: true', () => {
  let folder: string;

  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'kma-declaration-'));
    const modules = join(folder, 'node_modules');
    mkdirSync(modules);
    // Linked one by one, not the whole node_modules: the package must be found by its name.
    symlinkSync(root, join(modules, 'koa-model-api'), 'dir');
    for (const name of ['@mikro-orm', 'reflect-metadata'])
      symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(folder, 'entities.ts'), guideEntities());
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          module: 'nodenext',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          declaration: true,
          emitDeclarationOnly: true,
          rootDir: '.',
          outDir: 'out',
          types: [],
        },
        files: ['entities.ts'],
      }),
    );
  });

  after(() => {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  for (const [label, compiler] of [
    ['TypeScript 7', 'typescript'],
    ['TypeScript 5', 'typescript-5'],
  ] as const) {
    it(`emits the user model's declarations with ${label}`, () => {
      const tsc = spawnSync(
        process.execPath,
        [join(root, 'node_modules', compiler, 'bin', 'tsc'), '-p', folder],
        { encoding: 'utf8' },
      );
      assert.equal(tsc.status, 0, `tsc failed:\n${tsc.stdout}${tsc.stderr}`);
      const emitted = readFileSync(join(folder, 'out', 'entities.d.ts'), 'utf8');
      // Named through the entry point the file imports, not a path into dist/.
      assert.match(emitted, /typeof FrameworkModel & import\("koa-model-api"\)\.AuthModelConstructor/);
    });
  }
});
