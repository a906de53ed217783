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

/** The domain's folders. Front ends (cli, server, web, client), the composition root and the bottom layers (store, shared) are left out. */
const DOMAIN =
  /^src\/(runs|queue|pulls|landing|benchmarks|workflows|catalog|agents|conversations|coordination|config|system|events|processes|webhooks|schedules|workspaces|tracing)\//;
/** The rooms inside runs/ (model, storage, executor, …), checked among themselves as the domain's folders are. */
const RUNS_ROOM = /^src\/runs\/([a-z-]+)\//;

/** Two views of the same graph: the domain's folders, and the rooms inside runs/. */
const VIEWS = {
  'domain folders': (path) => DOMAIN.exec(path)?.[1],
  'rooms of runs/': (path) => RUNS_ROOM.exec(path)?.[1],
};

const typescript = require('typescript');
const tsConfig = typescript.readConfigFile('tsconfig.json', typescript.sys.readFile).config;
const result = await cruise(['src'], { ...config.options, validate: false }, undefined, { tsConfig });
const modules = result.output.modules;

function cyclesOf(roomOf) {
  /** folder → folder → one example import */
  const edges = new Map();
  for (const module of modules) {
    const from = roomOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = roomOf(dependency.resolved);
      if (!to || to === from) continue;
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

  return { edges, components };
}

for (const [view, roomOf] of Object.entries(VIEWS)) {
  const { edges, components } = cyclesOf(roomOf);
  if (components.length === 0) {
    console.log(`✔ no folder-level cycle among the ${view} (${edges.size} with imports)`);
    continue;
  }
  for (const component of components) {
    console.error(`✘ folder cycle among the ${view}: {${component.join(', ')}}`);
    for (const from of component)
      for (const [to, example] of edges.get(from) ?? []) if (component.includes(to)) console.error(`    ${from} → ${to}: ${example}`);
  }
  process.exitCode = 1;
}
