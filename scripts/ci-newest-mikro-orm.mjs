// CI step: the MikroORM adapter's conformance suite against the newest MikroORM 7.x on the registry.
// The repository pins MikroORM (devDependencies) so that the main suite is reproducible; its peer
// ranges promise every 7.x from that pin upwards, and this step checks the other end of the range.
// It works in a temporary copy of the repository (without node_modules, dist, .git), so the
// checkout's node_modules is never touched: `npm ci`, then `npm install --no-save` of the chosen
// @mikro-orm/* versions, `npm run build`, and the conformance tests on SQLite, PostgreSQL, MariaDB.
//
// Two sets of versions, each tested in turn (the second is skipped when it equals the first):
// 1. shared: every @mikro-orm/* package declares `@mikro-orm/core` at its own exact version as a
//    peer, so only one shared version installs without forcing, and the registry does not publish
//    every package at every version. This is the newest stable 7.x that all the packages the
//    repository uses (its @mikro-orm/* devDependencies) have: what `npm install` gives a user.
// 2. each: every package at its own newest installable 7.x (its @mikro-orm/* dependencies are
//    published), installed with --legacy-peer-deps: the adapter against the newest core and
//    drivers even while a package such as @mikro-orm/decorators lags behind.
//
// Usage: node scripts/ci-newest-mikro-orm.mjs
// Env: KMA_DATABASES (default sqlite-memory,postgresql,mariadb), KMA_MIKRO_ORM_VERSION (test this
// one shared version only), KMA_KEEP_TMP=1 (keep the temporary copy).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

const root = join(import.meta.dirname, '..');
const started = Date.now();
// Not copied: installed or generated trees, and anything a run leaves behind.
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', '.tmp', join('docs', 'api')]);

function log(message) {
  console.log(`ci-newest: ${message}`);
}

function run(command, args, cwd, env = process.env) {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`${command} ${args[0]} failed (exit ${result.status ?? result.signal})`);
}

function npmJson(args) {
  const result = spawnSync('npm', [...args, '--json'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${result.stderr.trim()}`);
  return result.stdout.trim() === '' ? undefined : JSON.parse(result.stdout);
}

/** Stable 7.x versions, newest first. */
function stableSevens(versions) {
  const parse = (v) => v.split('.').map(Number);
  return versions
    .filter((v) => /^7\.\d+\.\d+$/.test(v))
    .sort((a, b) => {
      const [x, y] = [parse(a), parse(b)];
      return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
    });
}

/** The newest version of a package whose @mikro-orm/* dependencies are published at the versions it names. */
function newestInstallable(name, published) {
  const versionsOf = (dep) => published.get(dep) ?? stableSevens([npmJson(['view', dep, 'versions'])].flat());
  for (const version of published.get(name)) {
    const deps = npmJson(['view', `${name}@${version}`, 'dependencies']) ?? {};
    // MikroORM's packages name each other at exact versions; a range is left to npm.
    const missing = Object.entries(deps).filter(
      ([dep, wanted]) =>
        dep.startsWith('@mikro-orm/') && /^\d+\.\d+\.\d+$/.test(wanted) && !versionsOf(dep).includes(wanted),
    );
    if (missing.length === 0) return version;
    const list = missing.map(([dep, v]) => `${dep}@${v}`).join(', ');
    log(`${name}@${version} is not installable: it needs ${list}, which is not published`);
  }
  throw new Error(`no installable 7.x of ${name}`);
}

/** The version sets to test, as lists of `name@version`. */
function chooseSets(names) {
  const forced = process.env.KMA_MIKRO_ORM_VERSION?.trim();
  if (forced) {
    log(`KMA_MIKRO_ORM_VERSION=${forced}: testing that version only`);
    return [{ label: `shared ${forced}`, specs: names.map((name) => `${name}@${forced}`), relaxed: false }];
  }
  const published = new Map(
    names.map((name) => [name, stableSevens([npmJson(['view', name, 'versions'])].flat())]),
  );
  for (const [name, versions] of published)
    log(`${name}: newest 7.x on the registry ${versions[0] ?? 'none'}`);
  const shared = [...published.values()].reduce((common, versions) =>
    common.filter((v) => versions.includes(v)),
  )[0];
  if (shared === undefined) throw new Error(`no 7.x version is published for all of ${names.join(', ')}`);
  log(`newest 7.x every package has: ${shared}`);
  const sets = [
    { label: `shared ${shared}`, specs: names.map((name) => `${name}@${shared}`), relaxed: false },
  ];
  const each = names.map((name) => `${name}@${newestInstallable(name, published)}`);
  if (each.some((spec) => !spec.endsWith(`@${shared}`))) {
    sets.push({ label: 'each package at its newest', specs: each, relaxed: true });
  } else {
    log('every package is newest at the shared version: one set to test');
  }
  return sets;
}

/** Every installed copy of a @mikro-orm/* package, nested ones included. */
function installedCopies(dir) {
  const found = [];
  const visit = (modules, nested) => {
    const scope = join(modules, '@mikro-orm');
    if (!existsSync(scope)) return;
    for (const name of readdirSync(scope)) {
      const pkgDir = join(scope, name);
      const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
      found.push({ spec: `@mikro-orm/${name}@${version}`, path: relative(dir, pkgDir), nested });
      if (existsSync(join(pkgDir, 'node_modules'))) visit(join(pkgDir, 'node_modules'), true);
    }
  };
  visit(join(dir, 'node_modules'), false);
  return found;
}

/** Installs one set into the copy, builds, and runs the conformance suite. */
function testSet(work, { label, specs, relaxed }) {
  log(`=== ${label}${relaxed ? ' (peer checks relaxed: MikroORM itself asks for one shared version)' : ''}`);
  const flags = relaxed ? ['--legacy-peer-deps'] : [];
  run('npm', ['install', '--no-save', '--no-audit', '--no-fund', ...flags, ...specs], work);
  const copies = installedCopies(work);
  for (const copy of copies) log(`installed ${copy.spec} (${copy.path})`);
  const wrong = specs.filter((spec) => !copies.some((copy) => !copy.nested && copy.spec === spec));
  if (wrong.length > 0) throw new Error(`${label}: not installed as asked: ${wrong.join(', ')}`);
  // A shared set must be one version throughout; a nested copy would mean npm split the tree.
  const nested = copies.filter((copy) => copy.nested);
  if (!relaxed && nested.length > 0)
    throw new Error(`${label}: nested copies ${nested.map((c) => c.path).join(', ')}`);

  run('npm', ['run', 'build'], work);
  const databases = process.env.KMA_DATABASES?.trim() || 'sqlite-memory,postgresql,mariadb';
  log(`conformance suite, ${label}, databases ${databases}`);
  run(
    join(work, 'node_modules', '.bin', 'node'),
    ['scripts/test.mjs', 'adapters/mikro-orm/conformance'],
    work,
    {
      ...process.env,
      KMA_DATABASES: databases,
    },
  );
  log(`${label}: passed`);
}

const work = mkdtempSync(join(tmpdir(), 'kma-newest-'));
let failed = false;
try {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const names = Object.keys(manifest.devDependencies).filter((name) => name.startsWith('@mikro-orm/'));
  const sets = chooseSets(names);

  log(`copying the repository to ${work}`);
  cpSync(root, work, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source);
      return (
        !SKIP.has(path) && !path.split(sep).includes('node_modules') && !/\.(sqlite3?|db|log)$/.test(path)
      );
    },
  });
  run('npm', ['ci', '--no-audit', '--no-fund'], work);
  for (const set of sets) testSet(work, set);
} catch (error) {
  failed = true;
  console.error(`ci-newest: FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (process.env.KMA_KEEP_TMP === '1') log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
  log(`${failed ? 'failed' : 'passed'} in ${Math.round((Date.now() - started) / 1000)} s`);
}
process.exit(failed ? 1 : 0);
