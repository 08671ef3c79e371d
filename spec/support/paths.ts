/** Paths of the repository, found from the compiled test files wherever the build put them. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root: the nearest folder above this file with a package.json. */
export function repoRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the test files');
    dir = parent;
  }
  return dir;
}
