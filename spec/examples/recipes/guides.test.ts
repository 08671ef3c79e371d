/**
 * The guides and their recipes cannot drift apart: every code block marked
 * `<!-- recipe: path -->` appears verbatim in that file (imports of the repository's own modules
 * shown under their package names), every recipe is linked from a guide, and every link resolves.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../../support/paths.js';

const root = repoRoot();
const GUIDES = [
  'getting-started',
  'models',
  'composing',
  'adapters',
  'custom-auth',
  'deployment',
  'authentication',
  'relations',
  'testing',
] as const;
/** The sentence each guide carries once, so readers know why the recipe files look different. */
const PACKAGE_NOTE = 'The recipes import from relative paths of this repository';

interface Manifest {
  readonly name: string;
  readonly exports: Record<string, { readonly default: string }>;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

/**
 * Each entry point of the package as [its compiled file's path from the repository root, its
 * package name], read from package.json `exports` (`./dist/lib/auth/index.js` is `lib/auth/index.js`,
 * imported as `koa-model-api/auth`).
 */
const PACKAGES: readonly (readonly [string, string])[] = Object.entries(manifest.exports).map(
  ([subpath, target]) => [
    target.default.replace(/^\.\/dist\//, ''),
    subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`,
  ],
);

/** The folders the published code lives in; recipes reach them only through an entry point. */
const PUBLISHED = ['lib/', 'adapters/', 'conformance/'];

interface MarkedBlock {
  readonly guide: string;
  readonly file: string;
  readonly code: string;
}

function guideText(name: string): string {
  return readFileSync(join(root, 'docs', `${name}.md`), 'utf8');
}

function markedBlocks(name: string): MarkedBlock[] {
  const pattern = /<!-- recipe: (\S+) -->\s*\n```ts\n([\s\S]*?)\n```/g;
  return [...guideText(name).matchAll(pattern)].map((match) => ({
    guide: name,
    file: match[1] ?? '',
    code: match[2] ?? '',
  }));
}

/** The repository path a relative import of `file` (repository path) points at. */
function targetOf(file: string, specifier: string): string {
  return posix.normalize(posix.join(posix.dirname(file), specifier));
}

/** The entry point a relative import of `file` (repository path) points at, if any. */
function entryOf(file: string, specifier: string): readonly [string, string] | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = targetOf(file, specifier);
  return PACKAGES.find(([entry]) => target === entry);
}

/**
 * The package a relative import of `file` shows as in a guide: its entry point, else (a fixture
 * importing a module of lib/ directly) the entry point of the deepest folder holding the module,
 * the first listed when two share a folder (the root before the adapter kit). The names a block
 * imports are checked against that entry point's exports.
 */
function packageOf(file: string, specifier: string): readonly [string, string] | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = targetOf(file, specifier);
  const depth = ([entry]: readonly [string, string]): number => posix.dirname(entry).length;
  const holding = PACKAGES.filter(([entry]) => target.startsWith(`${posix.dirname(entry)}/`));
  const nearest = holding.reduce<readonly [string, string] | undefined>(
    (best, entry) => (best === undefined || depth(entry) > depth(best) ? entry : best),
    undefined,
  );
  return entryOf(file, specifier) ?? nearest;
}

/** The file's text with imports of the repository's own modules written as package imports. */
function asPackageImports(file: string, text: string): string {
  return text.replace(/(from |import )'([^']+)'/g, (whole, keyword: string, specifier: string) => {
    const found = packageOf(file, specifier);
    return found === undefined ? whole : `${keyword}'${found[1]}'`;
  });
}

/** Value names a block imports from each package (type-only names cannot be checked at run time). */
function packageValueImports(code: string): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const match of code.matchAll(/import (type )?\{([^}]*)\} from '([^']+)'/g)) {
    const [, typeOnly, names = '', specifier = ''] = match;
    const entry = PACKAGES.find(([, name]) => name === specifier);
    if (typeOnly !== undefined || entry === undefined) continue;
    const values = names
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && !name.startsWith('type '))
      .map((name) => name.split(/\s+as\s+/)[0] ?? name);
    byPackage.set(entry[0], [...(byPackage.get(entry[0]) ?? []), ...values]);
  }
  return byPackage;
}

function recipeFiles(dir = join(root, 'examples', 'recipes')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? recipeFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('guides and recipes', () => {
  for (const name of GUIDES) {
    describe(`docs/${name}.md`, () => {
      const blocks = markedBlocks(name);

      it('shows recipe code and says how recipes import the package', () => {
        assert.ok(blocks.length > 0, 'no <!-- recipe: … --> block');
        assert.equal(guideText(name).split(PACKAGE_NOTE).length - 1, 1, `"${PACKAGE_NOTE}" once`);
      });

      for (const [index, block] of blocks.entries()) {
        it(`block ${index + 1} is in ${block.file}`, async () => {
          const path = join(root, block.file);
          assert.ok(existsSync(path), `${block.file} exists`);
          const source = asPackageImports(block.file, readFileSync(path, 'utf8'));
          assert.ok(
            source.includes(block.code),
            `the block is not verbatim in ${block.file}:\n${block.code}`,
          );
          for (const [entry, names] of packageValueImports(block.code)) {
            const exported = (await import(
              pathToFileURL(join(import.meta.dirname, '..', '..', '..', entry)).href
            )) as object;
            for (const value of names) assert.ok(value in exported, `${value} is exported by ${entry}`);
          }
        });
      }

      it('links only to files that exist', () => {
        for (const match of guideText(name).matchAll(/\]\(((?!https?:|#)[^)#\s]+)(#[^)]*)?\)/g)) {
          const target = match[1] ?? '';
          assert.ok(existsSync(join(root, 'docs', target)), `docs/${name}.md links to ${target}`);
        }
      });
    });
  }

  it('every recipe reaches lib/, adapters/ and conformance/ only through entry points of the package', () => {
    const deep: string[] = [];
    for (const path of recipeFiles()) {
      const file = path
        .slice(root.length + 1)
        .split(/[\\/]/)
        .join('/');
      for (const match of readFileSync(path, 'utf8').matchAll(/(?:from |import )'(\.[^']+)'/g)) {
        const target = targetOf(file, match[1] ?? '');
        if (
          PUBLISHED.some((folder) => target.startsWith(folder)) &&
          entryOf(file, match[1] ?? '') === undefined
        )
          deep.push(`${file}: ${match[1]}`);
      }
    }
    assert.deepEqual(deep, [], 'imports of files that are no entry point of the package');
  });

  it('every recipe file is linked from a guide', () => {
    const all = GUIDES.map(guideText).join('\n');
    for (const file of recipeFiles()) {
      const relative = posix.join(
        'examples',
        'recipes',
        file
          .slice(join(root, 'examples', 'recipes').length + 1)
          .split(/[\\/]/)
          .join('/'),
      );
      assert.ok(
        all.includes(`../${relative}`) || all.includes(`recipe: ${relative}`),
        `${relative} is not linked from a guide`,
      );
    }
  });

  it('every recipe test file exists where the guides say', () => {
    for (const name of GUIDES) {
      for (const match of guideText(name).matchAll(
        /\((\.\.\/spec\/examples\/recipes\/[\w.-]+\.test\.ts)\)/g,
      )) {
        assert.ok(existsSync(join(root, 'docs', match[1] ?? '')), match[1]);
      }
      assert.match(
        guideText(name),
        /\.\.\/spec\/examples\/recipes\/[\w.-]+\.test\.ts/,
        `docs/${name}.md links its test`,
      );
    }
  });
});
