/** Every scenario of the bench, in run order; the types live in scenario-types.ts. */
import type { Scenario } from './scenario-types.js';
import { pages } from './scenarios/pages.js';
import { routeSweep } from './scenarios/route-sweep.js';
import { SHARED_SCENARIOS } from './scenarios/shared.js';
import { soak } from './scenarios/soak.js';

export {
  type Metrics,
  SCENARIO_NAMES,
  type Scenario,
  type ScenarioContext,
  type ScenarioName,
  type Timing,
} from './scenario-types.js';

/** Every scenario, in run order: those of the shared profile processes, then those that start their own. */
export const SCENARIOS: readonly Scenario[] = [...SHARED_SCENARIOS, routeSweep, pages, soak];
