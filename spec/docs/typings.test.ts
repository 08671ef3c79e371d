/**
 * The published typings compile in a user's project without `skipLibCheck`: every package a
 * `.d.ts` of the tarball (dist/lib, dist/adapters, dist/conformance) imports is a dependency
 * or a peer of the package, and brings its types — its own, or an `@types/…` package that is itself
 * a dependency or a peer. A type package that is only a devDependency here (TS7016 for the user)
 * fails this test. scripts/ci-package.mjs checks the same end to end with a real install.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';

interface Manifest {
  readonly name: string;
  readonly files: readonly string[];
  readonly dependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
}

interface InstalledManifest {
  readonly types?: string;
  readonly typings?: string;
  readonly exports?: unknown;
}

const root = repoRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

function declarationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return declarationFiles(path);
    return path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The package of a bare specifier (`@scope/name/sub` → `@scope/name`, `ajv/dist/2020.js` → `ajv`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Bare specifiers of import/export declarations, `import("…")` types and `/// <reference types>`. */
function importedPackages(text: string): Set<string> {
  // Comments are not code (JSDoc examples name the package's own entry points), but a triple-slash
  // reference is a comment that does load a package.
  const references = [...text.matchAll(/^\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/gm)];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const found = new Set<string>();
  for (const match of [...references, ...patterns.flatMap((pattern) => [...code.matchAll(pattern)])]) {
    const specifier = match[1] ?? '';
    if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
    found.add(packageOf(specifier));
  }
  return found;
}

/** Whether an installed package ships its own declarations. */
function shipsTypes(name: string): boolean {
  const dir = join(root, 'node_modules', name);
  const installed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as InstalledManifest;
  if (installed.types !== undefined || installed.typings !== undefined) return true;
  if (JSON.stringify(installed.exports ?? {}).includes('"types"')) return true;
  return existsSync(join(dir, 'index.d.ts'));
}

/** `@types/…` name of a package (`@scope/name` → `@types/scope__name`). */
function typesPackageOf(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

describe('published typings', () => {
  const declared = new Set([
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.peerDependencies),
  ]);
  // Compiled folders; docs/ ships guides, not code.
  const published = manifest.files.filter((entry) => !entry.startsWith('!') && entry.startsWith('dist/'));
  const files = published.flatMap((folder) => declarationFiles(join(root, folder)));

  it('exist for every published folder', () => {
    for (const folder of published) {
      assert.ok(
        files.some((file) => file.startsWith(join(root, folder))),
        `${folder} has no .d.ts: run npm run build`,
      );
    }
  });

  it('import only dependencies and peers that bring their own types or a declared @types package', () => {
    const wrong: string[] = [];
    for (const file of files) {
      for (const name of importedPackages(readFileSync(file, 'utf8'))) {
        if (name === manifest.name || builtinModules.includes(name)) continue;
        const where = file.slice(root.length + 1);
        if (!declared.has(name)) {
          wrong.push(`${where}: ${name} is neither a dependency nor a peer`);
        } else if (!shipsTypes(name) && !declared.has(typesPackageOf(name))) {
          wrong.push(`${where}: ${name} has no types of its own and ${typesPackageOf(name)} is not declared`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});
