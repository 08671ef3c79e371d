// CI step: the package as a user gets it. Packs the tarball (its `prepack` builds it), checks what it
// holds, then sets up a fresh project exactly as docs/getting-started.md says — its install
// commands with the tarball in place of `koa-model-api`, its tsconfig.json (no skipLibCheck), its
// package.json (`"type": "module"` and the `scripts` block), the guide's three recipe files under
// `src/` — compiles it with the project's own TypeScript (`npm run build`, the guide's `tsc`), starts
// it with `npm start`, sends requests, and stops it with SIGTERM. It then compiles the same project
// with `declaration: true` (a library-style build) into a separate folder, which fails when a type
// the user's .d.ts must name (the base class of `extends AuthMixin(FrameworkModel)`) is not
// reachable from the entry point the user imports.
//
// It packs from a temporary copy of the repository whose node_modules is a link to the checkout's,
// so the checkout's dist/ (which the main suite is reading at the same time) is never rebuilt.
// Everything is read from the guide, so a guide that stops working fails this step.
//
// Usage: node_modules/.bin/node scripts/ci-package.mjs
// Env: KMA_KEEP_TMP=1 keeps the temporary folder.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

const root = join(import.meta.dirname, '..');
const started = Date.now();
const GUIDE = join(root, 'docs', 'getting-started.md');
// Not copied: installed or generated trees, and anything a run leaves behind.
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'coverage', '.tmp', join('docs', 'api')]);

function log(message) {
  console.log(`ci-package: ${message}`);
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Runs a command to its end (at most `timeoutMs`); throws when it fails. */
function run(command, args, cwd, env, timeoutMs = 300_000) {
  const at = Date.now();
  log(`$ ${command} ${args.join(' ')}   (in ${cwd})`);
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit', timeout: timeoutMs });
  if (result.error !== undefined) throw new Error(`${command} ${args[0]}: ${result.error.message}`);
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  log(`  took ${seconds(at)}`);
}

/** The guide's parts a user copies: install commands, tsconfig.json, package.json, recipe files. */
function readGuide() {
  const text = readFileSync(GUIDE, 'utf8');
  const blocks = [...text.matchAll(/```(\w+)\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1], code: m[2] }));
  const install = blocks.find((b) => b.lang === 'sh' && /^npm install koa-model-api\b/m.test(b.code));
  if (install === undefined) throw new Error('the guide has no `npm install koa-model-api` block');
  const commands = install.code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('npm install'));
  const tsconfig = blocks.find((b) => b.lang === 'json' && b.code.includes('"compilerOptions"'));
  const scripts = blocks.find((b) => b.lang === 'json' && b.code.includes('"scripts"'));
  if (tsconfig === undefined || scripts === undefined)
    throw new Error('the guide has no tsconfig.json or no package.json `scripts` block');
  if (!text.includes('`package.json` needs `"type": "module"`'))
    throw new Error('the guide no longer says that package.json needs "type": "module"');
  const recipes = [
    ...text.matchAll(
      /<!-- recipe: examples\/recipes\/getting-started\/([\w-]+\.ts) -->\s*\n```ts\n([\s\S]*?)\n```/g,
    ),
  ].map((m) => ({ file: m[1], code: `${m[2]}\n` }));
  if (recipes.length === 0) throw new Error('the guide has no recipe blocks');
  return {
    commands,
    tsconfig: JSON.parse(tsconfig.code),
    scripts: JSON.parse(scripts.code).scripts,
    recipes,
  };
}

/** `npm pack` in a copy of the repository; returns the tarball's path and its file list. */
function pack(work) {
  const copy = join(work, 'repository');
  cpSync(root, copy, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source);
      return (
        !SKIP.has(path) && !path.split(sep).includes('node_modules') && !/\.(sqlite3?|db|log)$/.test(path)
      );
    },
  });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  run('npm', ['pack', '--pack-destination', work], copy, process.env);
  const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
  const tarball = join(work, `${manifest.name}-${manifest.version}.tgz`);
  const listed = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`tar -t failed: ${listed.stderr}`);
  const files = listed.stdout
    .split('\n')
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));
  return { tarball, files, manifest };
}

/** What the tarball must and must not hold. */
function checkContents({ tarball, files, manifest }) {
  const problems = [];
  // README's links point into docs/ (guides, the Swagger UI picture): shipped with it.
  for (const required of [
    'package.json',
    'LICENSE',
    'README.md',
    'docs/getting-started.md',
    'docs/images/swagger-ui.png',
  ])
    if (!files.includes(required)) problems.push(`missing ${required}`);
  for (const [entry, targets] of Object.entries(manifest.exports)) {
    for (const target of Object.values(targets)) {
      if (!files.includes(target.replace(/^\.\//, '')))
        problems.push(`export ${entry}: ${target} is not in it`);
    }
  }
  for (const file of files) {
    if (/\.map$/.test(file)) problems.push(`a source map without its source: ${file}`);
    if (/\.test\.|\/fixtures\/|\/support\//.test(file)) problems.push(`a test file: ${file}`);
    if (/\.ts$/.test(file) && !/\.d\.ts$/.test(file)) problems.push(`a TypeScript source: ${file}`);
    if (/\.js$/.test(file) && /sourceMappingURL=/.test(readTarEntry(tarball, file)))
      problems.push(`a sourceMappingURL to a map that is not shipped: ${file}`);
  }
  if (problems.length > 0) throw new Error(`the tarball is wrong:\n  ${problems.join('\n  ')}`);
}

const tarEntries = new Map();
function readTarEntry(tarball, file) {
  if (tarEntries.size === 0) {
    // One extraction instead of one `tar -xO` per file.
    const dir = `${tarball}.d`;
    mkdirSync(dir, { recursive: true });
    const result = spawnSync('tar', ['-xzf', tarball, '-C', dir]);
    if (result.status !== 0) throw new Error('tar -x failed');
    tarEntries.set('dir', dir);
  }
  return readFileSync(join(tarEntries.get('dir'), 'package', file), 'utf8');
}

/** Sets up the project from the guide and installs it; returns the environment to run it with. */
function setUpProject(work, tarball, guide) {
  const project = join(work, 'notes-api');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'notes-api', version: '1.0.0', private: true, type: 'module', scripts: guide.scripts }, null, 2)}\n`,
  );
  writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(guide.tsconfig, null, 2)}\n`);
  if (guide.tsconfig.compilerOptions.skipLibCheck === true)
    throw new Error('the guide sets skipLibCheck: the published typings would go unchecked');
  for (const { file, code } of guide.recipes) writeFileSync(join(project, 'src', file), code);
  log(`project: package.json, tsconfig.json, src/${guide.recipes.map((r) => r.file).join(', src/')}`);

  // The guide's Node (>= 22.17): this script's own, first on PATH; the project's npm scripts then find
  // their own node_modules/.bin (its tsc) before anything else.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  delete env.npm_config_prefix;
  for (const command of guide.commands) {
    const args = command
      .split(/\s+/)
      .slice(1)
      .map((arg) => (arg === 'koa-model-api' ? tarball : arg));
    run('npm', [...args, '--no-audit', '--no-fund'], project, env);
  }
  const installed = JSON.parse(
    readFileSync(join(project, 'node_modules', 'typescript', 'package.json'), 'utf8'),
  );
  log(`project TypeScript ${installed.version}`);
  return { project, env };
}

/** `npm start` (build, then `node dist/main.js`), a few requests, SIGTERM. */
async function startAndRequest(project, env) {
  const child = spawn('npm', ['start'], {
    cwd: project,
    env: { ...env, PORT: '0', JWT_SECRET: randomBytes(48).toString('base64') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm, sh and node all get the signal
  });
  let output = '';
  const onData = (chunk) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const stopGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let base;
  let answered = false;
  try {
    base = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "Notes API on …" line in 120 s:\n${output}`)),
        120_000,
      );
      const check = () => {
        const match = /Notes API on (http:\/\/[\d.]+:\d+)/.exec(output);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout.on('data', check);
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited (${code}) before listening:\n${output}`));
      });
    });
    log(`listening on ${base}`);
    const expect = async (label, response, status) => {
      const body = await response.text();
      if (response.status !== status)
        throw new Error(`${label}: ${response.status}, expected ${status}: ${body}`);
      log(`${label}: ${response.status}`);
      return body;
    };
    const document = JSON.parse(await expect('GET /openapi.json', await fetch(`${base}/openapi.json`), 200));
    const paths = Object.keys(document.paths ?? {}).sort();
    if (!paths.includes('/notes') || !paths.includes('/register'))
      throw new Error(`/openapi.json has paths ${paths.join(', ')}`);
    await expect('GET /docs', await fetch(`${base}/docs`), 200);
    const json = (body, headers = {}) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const credentials = { username: 'ann', password: 'correct horse' };
    await expect(
      'POST /register',
      await fetch(`${base}/register`, json({ ...credentials, email: 'ann@example.com' })),
      201,
    );
    const { access_token } = JSON.parse(
      await expect('POST /login', await fetch(`${base}/login`, json(credentials)), 200),
    );
    const auth = { authorization: `Bearer ${access_token}` };
    await expect('POST /notes', await fetch(`${base}/notes`, json({ title: 'First note' }, auth)), 201);
    const notes = JSON.parse(
      await expect('GET /notes', await fetch(`${base}/notes`, { headers: auth }), 200),
    );
    if (notes.length !== 1 || notes[0].title !== 'First note')
      throw new Error(`GET /notes: ${JSON.stringify(notes)}`);
    answered = true;
  } finally {
    stopGroup('SIGTERM');
    const timer = setTimeout(() => stopGroup('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  // The app closes its server on SIGTERM (npm itself ends by the signal): nothing answers any more.
  const after = await fetch(`${base}/health/live`).then(
    (response) => `answered ${response.status}`,
    () => 'refused',
  );
  if (after !== 'refused') throw new Error(`after SIGTERM the server still ${after}`);
  if (answered) log('stopped by SIGTERM: the port refuses connections');
}

/** The project's own `tsc` with `declaration: true`, declarations only, outside its dist/. */
function compileDeclarations(project, env) {
  const tsc = join(project, 'node_modules', '.bin', 'tsc');
  run(tsc, ['-p', '.', '--declaration', '--emitDeclarationOnly', '--outDir', 'declarations'], project, env);
  const emitted = readFileSync(join(project, 'declarations', 'entities.d.ts'), 'utf8');
  if (emitted.includes('dist/lib/'))
    throw new Error(`entities.d.ts names a path into the package:\n${emitted}`);
  log('declaration: true compiles');
}

const work = mkdtempSync(join(tmpdir(), 'kma-package-'));
let failed = false;
try {
  const guide = readGuide();
  let at = Date.now();
  const packed = pack(work);
  checkContents(packed);
  const size = readFileSync(packed.tarball).length;
  log(
    `tarball ${relative(work, packed.tarball)}: ${packed.files.length} files, ${(size / 1024).toFixed(1)} KiB (packed in ${seconds(at)})`,
  );
  at = Date.now();
  const { project, env } = setUpProject(work, packed.tarball, guide);
  log(`installed in ${seconds(at)}`);
  at = Date.now();
  await startAndRequest(project, env);
  log(`built, started and answered in ${seconds(at)}`);
  compileDeclarations(project, env);
} catch (error) {
  failed = true;
  console.error(`ci-package: FAILED: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (process.env.KMA_KEEP_TMP === '1') log(`kept ${work}`);
  else if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  log(`${failed ? 'failed' : 'passed'} in ${seconds(started)}`);
}
process.exit(failed ? 1 : 0);
