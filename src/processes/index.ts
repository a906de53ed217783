/** The processes folder's front door: what the rest of svc may use of it. */
export { watchIdle } from './idle-watchdog.js';
export { spawnGroup } from './process-group.js';
export { killOrphanGroup, processStartTime, readProcessFile } from './process-identity.js';
