/**
 * Runs: the run model (states, lifecycle, events, versions), their storage, the engine that starts
 * and drives them (`RunEngine`, the one door front ends and other domains call), the executor and
 * its node runners, timed wake-ups, and workflow tests. The rest of svc uses runs only through
 * this file (docs/ARCHITECTURE.md, "Rooms and front doors").
 */
export { RunEngine } from './control/run-engine.js';
export type { RunRecord } from './model/types.js';
