/**
 * Reading a `--cpu-prof` profile of a contender (`--profile DIR`): a process's profile spans its
 * whole life, and a contender idles between the scenarios it serves, so whole-profile shares are
 * mostly idle time. This finds the seconds the process was busy and sums self time there, by
 * package (a `node_modules` package, the framework's `lib/` or `adapters/`, Node's own modules) and
 * by function.
 */

/** The parts of a V8 `.cpuprofile` this reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self samples summed per key, largest first, with the window's sample count. */
export interface ProfileSummary {
  readonly from: number;
  readonly to: number;
  readonly samples: number;
  readonly byGroup: readonly (readonly [string, number])[];
  readonly byFunction: readonly (readonly [string, number])[];
}

const IDLE = '(idle)';

/** Where a function's code comes from, as the summary groups it. */
export function groupOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return pkg[1] as string;
  if (url.includes('/dist/lib/')) return 'kma: lib/';
  if (url.includes('/dist/adapters/')) return 'kma: adapters/';
  if (url.includes('/dist/bench/')) return 'bench';
  if (url.startsWith('node:')) return `node:${url.slice('node:'.length).split('/')[0]}`;
  return url;
}

/** Each sample's time in whole seconds since the profile started, and whether it was idle. */
function timeline(profile: CpuProfile): { second: number; id: number }[] {
  let t = profile.startTime;
  return profile.samples.map((id, i) => {
    t += profile.timeDeltas[i] ?? 0;
    return { second: Math.floor((t - profile.startTime) / 1e6), id };
  });
}

/**
 * The longest run of seconds in which the process was busy for at least `threshold` of the
 * samples: the measured load (a warm-up and its run are back to back). `[from, to)` in seconds.
 */
export function busiestWindow(profile: CpuProfile, threshold = 0.8): { from: number; to: number } {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === IDLE).map((n) => n.id));
  const perSecond = new Map<number, { busy: number; all: number }>();
  for (const { second, id } of timeline(profile)) {
    const entry = perSecond.get(second) ?? { busy: 0, all: 0 };
    entry.all++;
    if (!idle.has(id)) entry.busy++;
    perSecond.set(second, entry);
  }
  const last = Math.max(-1, ...perSecond.keys());
  let best = { from: 0, to: 0 };
  let start: number | undefined;
  for (let s = 0; s <= last + 1; s++) {
    const entry = perSecond.get(s);
    const busy = entry !== undefined && entry.busy / entry.all >= threshold;
    if (busy && start === undefined) start = s;
    if (!busy && start !== undefined) {
      if (s - start > best.to - best.from) best = { from: start, to: s };
      start = undefined;
    }
  }
  return best;
}

/** Self samples per group and per function in `[from, to)` seconds (default: the busiest window). */
export function summarize(profile: CpuProfile, window = busiestWindow(profile)): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let samples = 0;
  for (const { second, id } of timeline(profile)) {
    if (second < window.from || second >= window.to) continue;
    const frame = nodes.get(id);
    if (frame === undefined) continue;
    samples++;
    const group = groupOf(frame.url, frame.functionName);
    groups.set(group, (groups.get(group) ?? 0) + 1);
    const where =
      frame.url === '' ? '' : ` ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + 1);
  }
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { ...window, samples, byGroup: sorted(groups), byFunction: sorted(functions) };
}
