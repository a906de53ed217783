/** Pure views of domain data that front ends draw themselves (no store, no server). */
export { drawDag, toDrawNodes, toMermaid, type DrawNode } from '../workflows/draw.js';
export { patchLines, type PatchLineKind } from '../workspaces/patch-lines.js';
export { executionPlan, type ExecutionPlan, type PlannedNode } from '../workflows/plan.js';
