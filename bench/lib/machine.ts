/** The machine and versions a run happened on, for the results file and the report. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';

/** Where and with what the bench ran. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly kernel: string;
  readonly node: string;
  readonly postgres: string | undefined;
  readonly packages: Readonly<Record<string, string>>;
}

const PACKAGES = [
  'koa',
  '@koa/router',
  '@koa/bodyparser',
  '@mikro-orm/core',
  '@mikro-orm/sqlite',
  '@mikro-orm/postgresql',
  'better-sqlite3',
  'pg',
  'jsonwebtoken',
  '@node-rs/bcrypt',
  '@feathersjs/feathers',
  '@feathersjs/koa',
  '@feathersjs/knex',
  '@feathersjs/authentication',
  '@feathersjs/authentication-local',
  'knex',
  'bcryptjs',
  'autocannon',
];

function versionOf(root: string, name: string): string {
  try {
    return (
      JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return 'missing';
  }
}

/** Collects CPU, memory, kernel, Node, PostgreSQL (when reachable via psql) and package versions. */
export function machineInfo(root: string, pgUrl: string | undefined): MachineInfo {
  let postgres: string | undefined;
  if (pgUrl) {
    try {
      postgres = execFileSync('psql', [pgUrl, '-tAc', 'show server_version'], { encoding: 'utf8' }).trim();
    } catch {
      postgres = undefined;
    }
  }
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const packages: Record<string, string> = { 'koa-model-api': own.version };
  for (const name of PACKAGES) packages[name] = versionOf(root, name);
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    postgres,
    packages,
  };
}
