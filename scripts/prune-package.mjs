// prepack, after the package build: removes compiled files under the published folders of dist/
// whose TypeScript source no longer exists (a file deleted or renamed since an earlier build), so a
// tarball packed from a working copy ships exactly what the sources compile to. Only such orphans
// are removed: a tree built from the current sources is left as it is.
// Usage: node scripts/prune-package.mjs
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// The published folders are the `files` entries that are not negations (`dist/lib`, …).
const published = manifest.files.filter((entry) => !entry.startsWith('!'));
const OUTPUT = /\.(?:d\.ts|js)(?:\.map)?$/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

let removed = 0;
for (const folder of published) {
  const dir = join(root, folder);
  if (!existsSync(dir)) throw new Error(`${folder} was not built`);
  for (const file of walk(dir)) {
    const fromDist = relative(join(root, 'dist'), file);
    if (!OUTPUT.test(fromDist)) continue;
    const source = join(root, fromDist.replace(OUTPUT, '.ts'));
    if (existsSync(source)) continue;
    rmSync(file);
    removed += 1;
    console.log(`prune-package: removed ${relative(root, file)} (no ${relative(root, source)})`);
  }
}
console.log(`prune-package: ${removed} orphaned file(s) removed from ${published.join(', ')}`);
