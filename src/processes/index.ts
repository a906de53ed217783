/** Processes svc starts: process groups (spawn as leader, stop the group), the stall watchdog, process identity for crash recovery, what a process tree uses, and the server's memory budget for them. */
export { watchIdle } from './idle-watchdog.js';
export { spawnGroup, type GroupProcess } from './process-group.js';
export { killOrphanGroup, processStartTime, readProcessFile } from './process-identity.js';
export { procAvailable, processTree, TreeUsage } from './process-tree.js';
export { MEMORY_SAMPLE_MS, watchTreeMemory, type MemoryExceeded, type TreeMemoryWatch, type TreeUsageFigures } from './tree-memory.js';
export {
  DEFAULT_NODE_ESTIMATE_BYTES,
  defaultMemoryBudgetBytes,
  MemoryAdmission,
  PendingGrant,
  readMemInfo,
  type MemInfo,
  type MemoryGrant,
} from './memory-admission.js';
