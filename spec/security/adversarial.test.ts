/**
 * Runs the adversarial catalogue against the example blog on each database target (SQLite,
 * PostgreSQL, MariaDB), checking the invariants after every case: no 5xx, no password hash in any
 * body, and the admins unchanged unless the case meant to change them. Prints the counts at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type DatabaseTarget, databaseTargets, requireTarget } from '../support/databases.js';
import { catalogue } from './catalogue.js';
import type { CaseGroup, SecurityCase } from './support/cases.js';
import type { HttpResponse } from './support/client.js';
import { checkAdmins, checkResponse, InvariantLedger, PASSWORD_HASH } from './support/invariants.js';
import { ADMIN, PASSWORD, World } from './support/world.js';

// sqlite-file behaves as sqlite-memory for everything this suite looks at.
const targets = databaseTargets().filter((target): target is DatabaseTarget => target !== 'sqlite-file');

/** The groups the issue asks the catalogue to cover. */
const GROUPS: readonly CaseGroup[] = [
  'jwt',
  'mass-assignment',
  'login',
  'input',
  'identifiers',
  'routing',
  'authorization',
  'listing',
  'headers',
];

describe('the catalogue', () => {
  it('has at least 50 uniquely named cases covering every group of the issue', () => {
    assert.ok(catalogue.length >= 50, `${catalogue.length} cases`);
    assert.equal(new Set(catalogue.map((c) => c.name)).size, catalogue.length, 'names are unique');
    const groups = new Set(catalogue.map((c) => c.group));
    for (const group of GROUPS) assert.ok(groups.has(group), group);
  });
});

/** Sends the case's requests, checks the invariants on every response, then the case's own expectations. */
async function runCase(entry: SecurityCase, world: World, ledger: InvariantLedger): Promise<void> {
  const admins = await world.admins();
  const first = world.responses.length;
  const requests = await entry.requests(world);
  const responses: HttpResponse[] = [];
  if (entry.parallel) {
    responses.push(...(await Promise.all(requests.map((request) => world.send(request)))));
  } else {
    for (const request of requests) responses.push(await world.send(request));
  }
  ledger.cases += 1;
  for (const response of world.responses.slice(first)) checkResponse(response, ledger);
  checkAdmins(
    await world.admins(),
    entry.admins === undefined ? admins : await entry.admins(admins, world),
    ledger,
  );
  await entry.expect(responses, world);
}

for (const target of targets) {
  describe(`adversarial catalogue on ${target}`, await requireTarget(target), () => {
    let world: World;
    const ledger = new InvariantLedger();

    before(async () => {
      world = await World.start(target);
      for (const response of world.responses) checkResponse(response, ledger);
    });

    after(async () => {
      await world?.stop();
      console.log(
        `security catalogue on ${target}: ${ledger.cases} cases run, ${ledger.checks} invariant checks passed`,
      );
    });

    for (const entry of catalogue) {
      // A case documenting a defect of code this suite does not own says so in its name and failure.
      const label = `[${entry.group}] ${entry.name}${entry.defect === undefined ? '' : ' [DEFECT → lead]'}`;
      it(label, async () => {
        try {
          await runCase(entry, world, ledger);
        } catch (error) {
          if (entry.defect !== undefined && error instanceof Error)
            error.message += `\nKnown defect: ${entry.defect}`;
          throw error;
        }
      });
    }

    it('the log holds no password and no password hash', () => {
      const log = world.logger.lines.join('\n');
      assert.doesNotMatch(log, PASSWORD_HASH);
      for (const secret of [PASSWORD, ADMIN.password])
        assert.equal(log.includes(secret), false, 'a password reached the log');
      ledger.count();
    });
  });
}
