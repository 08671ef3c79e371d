/** The types shared by the scenarios and the runner: what a scenario is and what it is given. */
import type { Profile } from '../contenders/shared/env.js';
import type { ContenderName } from './contenders.js';
import type { BenchDatabase } from './database.js';
import type { Dataset } from './dataset.js';
import type { RequestShape } from './load.js';
import type { Tokens } from './probes.js';
import type { ContenderProcess } from './process.js';

/** Scenario keys, in run order. */
export const SCENARIO_NAMES = [
  'get_by_id',
  'list_20',
  'list_20_nocount',
  'list_20_include',
  'login',
  'login_storm',
  'auth_get',
  'create',
  'update',
  'delete',
  'memory',
  'route_sweep',
  'pages',
  'soak',
] as const;

/** A scenario key. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** Flat numeric figures of one run; medians are taken per key. */
export type Metrics = Record<string, number>;

/** How long and how hard every load runs. */
export interface Timing {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** Connections of the memory scenario. */
  readonly idleConnections: number;
  /** Length of each phase (idle, storm) of the login storm. */
  readonly stormPhaseSeconds: number;
  /** Pause that lets a server settle (GC, timers) before a memory reading. */
  readonly settleSeconds: number;
}

/** The sizes of the scenarios that start their own processes. */
export interface ScenarioSettings {
  /** Rows of the big tables the pages scenario pages through. */
  readonly pageSizes: readonly number[];
  /** Model counts of the route sweep. */
  readonly sweepModels: readonly number[];
  /** Length of the soak in seconds. */
  readonly soakSeconds: number;
}

/** What a scenario gets to work with for one contender already running in the scenario's profile. */
export interface ScenarioContext {
  /** The contender measured. */
  readonly contender: ContenderName;
  readonly data: Dataset;
  readonly tokens: Tokens;
  readonly proc: ContenderProcess;
  readonly db: BenchDatabase;
  readonly dbUrl: string;
  readonly timing: Timing;
  /** The contender's create throughput measured earlier in this run, to size the rows the delete scenario removes. */
  readonly writeRateHint: number | undefined;
}

/** How a scenario with processes of its own starts one: a profile, extra environment, another database. */
export interface LaunchRequest {
  readonly profile: Profile;
  readonly env?: Readonly<Record<string, string>>;
  /** Another database than the contender's copy (the big tables of the pages scenario). */
  readonly databaseUrl?: string;
}

/** What a scenario that starts its own processes gets: the runner stops whatever it launched. */
export interface OwnContext {
  readonly data: Dataset;
  readonly db: BenchDatabase;
  readonly dbUrl: string;
  readonly timing: Timing;
  readonly settings: ScenarioSettings;
  /** Starts the contender (pinned, like every other launch); it is stopped by `stop()` or after the scenario. */
  launch(request: LaunchRequest): Promise<ContenderProcess>;
}

/** A scenario run on a contender started once per profile and shared by the scenarios of that profile. */
export interface SharedScenario {
  readonly name: ScenarioName;
  readonly title: string;
  /** `fresh` scenarios get a newly started process of the open profile. */
  readonly profile: Profile | 'fresh';
  run(ctx: ScenarioContext): Promise<Metrics>;
  /**
   * The request the scenario measures, for the paired rounds that follow every contender's own
   * run (paired.ts); none for a scenario whose loads cannot repeat (delete uses up its rows).
   */
  paired?(ctx: ScenarioContext): RequestShape;
}

/** A scenario that starts the processes it needs (other models, other databases, long runs). */
export interface OwnScenario {
  readonly name: ScenarioName;
  readonly title: string;
  readonly profile: 'own';
  /** The contenders it measures. */
  readonly contenders: readonly ContenderName[];
  /** Run in the first repeat only (the soak: one long run, not a median). */
  readonly once?: boolean;
  run(ctx: OwnContext): Promise<Metrics>;
}

/** A scenario. */
export type Scenario = SharedScenario | OwnScenario;
