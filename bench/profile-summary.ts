/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile [--top N] [--from S --to S]`: where a
 * contender's CPU went while it was under load (bench/lib/cpu-profile.ts), by package and by
 * function, as shares of the window's samples. Compare two contenders' profiles of the same
 * scenario side by side; divide their window samples by their requests for CPU per request.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { busiestWindow, type CpuProfile, summarize } from './lib/cpu-profile.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
});
const file = positionals[0];
if (file === undefined) {
  console.error('usage: node dist/bench/profile-summary.js FILE.cpuprofile [--top N] [--from S --to S]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const window =
  values.from !== undefined && values.to !== undefined
    ? { from: Number(values.from), to: Number(values.to) }
    : busiestWindow(profile);
const summary = summarize(profile, window);
const top = Number(values.top ?? 25);
const share = (n: number): string => `${((100 * n) / Math.max(1, summary.samples)).toFixed(1).padStart(5)} %`;
console.log(`${file}: seconds ${summary.from}–${summary.to}, ${summary.samples} samples`);
for (const [group, n] of summary.byGroup.slice(0, top)) console.log(`  ${share(n)}  ${group}`);
console.log('  -- functions (self)');
for (const [name, n] of summary.byFunction.slice(0, top)) console.log(`  ${share(n)}  ${name}`);
