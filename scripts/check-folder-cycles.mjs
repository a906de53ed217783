// Folder-level cycles in the domain (docs/ARCHITECTURE.md, "Layers"), which dependency-cruiser's
// module-level `no-circular` cannot see: two folders each importing the other, module by module
// without a circle, still cannot be read or changed one without the other. Runs dependency-cruiser
// with the project's configuration, folds its module graph into one node per folder of src/ (the
// domain's rooms, and the rooms inside src/runs/), and fails on any cycle, printing one import of
// each arrow in it. Type-only imports count, as they do for module cycles.
import { cruise } from 'dependency-cruiser';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs');

/** The folders that are rooms: a domain folder, or a room inside runs/. Front ends and bottom layers are left out. */
const DOMAIN = /^src\/(runs\/[a-z-]+|runs|landing|benchmarks|workflows|catalog|agents|conversations|coordination|config|system|events|processes|webhooks|schedules|workspaces)\//;

function roomOf(path) {
  const match = DOMAIN.exec(path);
  if (!match) return undefined;
  const room = match[1];
  // A file at the top of runs/ (its index.ts) is the folder's front door, not a room of its own.
  return room;
}

const result = await cruise(['src'], { ...config.options, validate: false, ruleSet: undefined }, undefined, {
  tsConfig: require('typescript').readConfigFile?.('tsconfig.json', (p) => require('node:fs').readFileSync(p, 'utf8')).config,
});
const modules = result.output.modules;

/** folder → folder → one example import */
const edges = new Map();
for (const module of modules) {
  const from = roomOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    const to = roomOf(dependency.resolved);
    if (!to || to === from) continue;
    // runs/index.ts gathers its rooms: the arrow from the folder's door into its own rooms is not a cycle's half.
    if (from === 'runs' && to.startsWith('runs/')) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, `${module.source} → ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components.
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
let counter = 0;
function visit(node) {
  index.set(node, counter);
  low.set(node, counter);
  counter += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of edges.get(node)?.keys() ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
  }
  if (low.get(node) === index.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  }
}
for (const node of edges.keys()) if (!index.has(node)) visit(node);

if (components.length === 0) {
  console.log(`✔ no folder-level cycle (${edges.size} folders)`);
} else {
  for (const component of components) {
    console.error(`✘ folder cycle: {${component.join(', ')}}`);
    for (const from of component)
      for (const [to, example] of edges.get(from) ?? []) if (component.includes(to)) console.error(`    ${from} → ${to}: ${example}`);
  }
  process.exitCode = 1;
}
