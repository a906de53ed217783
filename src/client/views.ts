/** Pure views of domain data that front ends draw themselves (no store, no server). */
export { drawDag, toDrawNodes, toMermaid } from '../workflows/draw.js';
