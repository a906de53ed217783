/** Processes svc starts: process groups (spawn as leader, stop the group), the stall watchdog, and process identity for crash recovery. */
export { watchIdle } from './idle-watchdog.js';
export { spawnGroup } from './process-group.js';
export { killOrphanGroup, processStartTime, readProcessFile } from './process-identity.js';
