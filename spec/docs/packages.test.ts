/**
 * package.json and the install commands of the guides agree with the code: every package the
 * published code imports is declared, MikroORM's peer ranges start at the version CI tests, and
 * every `npm install` of a `@mikro-orm/*` package in README.md and docs/*.md names that version.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../support/paths.js';

interface Manifest {
  readonly name: string;
  readonly dependencies: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

const root = repoRoot();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** The package a bare specifier belongs to (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Bare specifiers in imports, dynamic imports and quoted '@mikro-orm/…' names (drivers loaded by name). */
function importedPackages(text: string): Set<string> {
  const found = new Set<string>();
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /['"](@mikro-orm\/[a-z-]+)(?:\/[^'"]*)?['"]/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
      found.add(packageOf(specifier));
    }
  }
  return found;
}

describe('package.json', () => {
  it('declares every package the published code (lib, adapters, the conformance suite) imports', () => {
    const published = ['lib', 'adapters', 'conformance'].flatMap((dir) => sourceFiles(join(root, dir)));
    const declared = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
      manifest.name,
      ...builtinModules,
    ]);
    const missing: string[] = [];
    for (const file of published) {
      for (const name of importedPackages(readFileSync(file, 'utf8'))) {
        if (!declared.has(name)) missing.push(`${name} (${file.slice(root.length + 1)})`);
      }
    }
    assert.deepEqual(missing, [], 'imported but neither a dependency nor a peer dependency');
  });

  it('gives every @mikro-orm peer a ^ range from the version the repository pins and tests', () => {
    const peers = Object.entries(manifest.peerDependencies).filter(([name]) =>
      name.startsWith('@mikro-orm/'),
    );
    assert.ok(peers.length > 0);
    for (const [name, range] of peers) {
      const pinned = manifest.devDependencies[name];
      assert.ok(pinned !== undefined, `${name} is a peer but not a devDependency, so CI never tests it`);
      assert.equal(range, `^${pinned}`, `${name}: peer range`);
    }
  });
});

describe('install commands in README.md and docs/*.md', () => {
  const guides = [
    join(root, 'README.md'),
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(root, 'docs', name)),
  ];
  const tested = manifest.devDependencies['@mikro-orm/core'];

  it(`name every @mikro-orm package at the tested version (${tested}): bare names mix versions`, () => {
    const wrong: string[] = [];
    for (const guide of guides) {
      for (const line of readFileSync(guide, 'utf8').split('\n')) {
        if (!/\bnpm (install|i|add)\b/.test(line)) continue;
        const specs = [...line.matchAll(/(@mikro-orm\/[a-z-]+)(@\S+)?/g)];
        if (specs.some((match) => match[2] !== `@${tested}`)) {
          wrong.push(`${guide.slice(root.length + 1)}: ${line.trim()}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});
