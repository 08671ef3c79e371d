// The npm registry reachable from this project's machines serves only the linux-x64 builds of
// packages that ship native binaries per platform (@biomejs/cli-*, @node-rs/bcrypt-*), so
// `npm install` leaves the other platforms' optional packages out of package-lock.json, and
// `npm ci` then refuses the lock ("Missing: … from lock file"). This adds an entry with the
// right os/cpu for each missing optional package, so `npm ci` skips them as for any other
// platform. Run it after every `npm install` that rewrites the lock: `node scripts/lockfile-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const path = join(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const OSES = ['android', 'darwin', 'win32', 'freebsd', 'linux', 'openbsd', 'sunos', 'aix'];

function platformOf(name) {
  const os = OSES.find((candidate) => name.includes(candidate));
  if (os === undefined) return undefined;
  const cpu = /arm64|aarch64/.test(name)
    ? 'arm64'
    : /x64|x86_64/.test(name)
      ? 'x64'
      : /ia32/.test(name)
        ? 'ia32'
        : /arm/.test(name)
          ? 'arm'
          : undefined;
  if (cpu === undefined) return undefined;
  const libc = os !== 'linux' ? undefined : name.includes('musl') ? 'musl' : 'glibc';
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries({ ...packages })) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location === '' ? '' : `${location}/`}node_modules/${name}`;
    if (packages[`node_modules/${name}`] !== undefined || packages[nested] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) continue;
    packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev === true ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
      cpu: [platform.cpu],
      ...(platform.libc === undefined ? {} : { libc: [platform.libc] }),
    };
    added += 1;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile-platform-stubs: ${added} entr${added === 1 ? 'y' : 'ies'} added`);
