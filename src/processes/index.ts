/** Processes svc starts: process groups (spawn as leader, stop the group), the stall watchdog, process identity for crash recovery, and what a process tree uses. */
export { watchIdle } from './idle-watchdog.js';
export { spawnGroup } from './process-group.js';
export { killOrphanGroup, processStartTime, readProcessFile } from './process-identity.js';
export { procAvailable, processTree, TreeUsage } from './process-tree.js';
