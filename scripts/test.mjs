// Runs the compiled test suite (dist/spec/**/*.test.js) with node's test runner.
// Usage: npm test [-- <path filter> ...]; KMA_DATABASES=sqlite-memory,postgresql narrows the targets.
// A run never hangs: every test and hook fails after KMA_TEST_TIMEOUT_MS (default 120 s, about five
// times the slowest test seen on a loaded two-core machine, the 22 s Swagger UI browser run).
// No --test-force-exit: it ends a file as soon as the tests registered so far have run, so a suite
// registered after a top-level await (a database probe per target) could silently never run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  console.error(
    `Node ${process.versions.node} is too old (MikroORM 7 needs >= 22.17): run \`npm test\`, which uses the pinned Node 24.`,
  );
  process.exit(1);
}

const root = join(import.meta.dirname, '..', 'dist', 'spec');
const filters = process.argv.slice(2);

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.test.js') ? [path] : [];
  });
}

const files = walk(root)
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort();
if (files.length === 0) {
  console.error('No test files matched.');
  process.exit(1);
}
const timeoutMs = Number(process.env.KMA_TEST_TIMEOUT_MS ?? 120_000);
if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
  console.error(`KMA_TEST_TIMEOUT_MS must be a positive whole number of milliseconds, not ${timeoutMs}.`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', `--test-timeout=${timeoutMs}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'test' } },
);
process.exit(result.status ?? 1);
