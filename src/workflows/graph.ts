/**
 * The dependency graph of a workflow's nodes (`depends_on`): what is wrong with it, in what order
 * nodes can run, and which nodes are upstream of which. Works on any `{ id, dependsOn }`, so
 * validation can use it on half-valid input and the run engine on validated workflows.
 *
 * An edge `a -> b` means "a depends on b" (b runs first), matching how `depends_on` reads.
 */

export interface GraphNode {
  readonly id: string;
  readonly dependsOn: readonly string[];
}

export type DependencyProblem =
  | { readonly kind: 'unknown'; readonly nodeIndex: number; readonly depIndex: number; readonly dependency: string }
  | { readonly kind: 'self'; readonly nodeIndex: number; readonly depIndex: number }
  | {
      readonly kind: 'cycle';
      /** The node the cycle is reported on (the earliest in the list) and its dependency that starts the cycle. */
      readonly nodeIndex: number;
      readonly depIndex: number;
      /** Node ids in dependency order, first id repeated at the end: `[a, b, c, a]`. */
      readonly cycle: readonly string[];
    };

/** `a -> b -> c -> a` */
export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(' -> ');
}

/**
 * Indexes nodes by id. Duplicate ids (a validation error reported elsewhere) are merged: the
 * first occurrence keeps its position, dependencies of all occurrences count.
 */
export class DependencyGraph {
  private readonly indexById = new Map<string, number>();
  private readonly depsById = new Map<string, string[]>();
  private readonly ancestorCache = new Map<string, ReadonlySet<string>>();

  constructor(private readonly nodes: readonly GraphNode[]) {
    nodes.forEach((node, index) => {
      if (!this.indexById.has(node.id)) this.indexById.set(node.id, index);
    });
    for (const node of nodes) {
      const deps = this.depsById.get(node.id) ?? [];
      for (const dep of node.dependsOn) {
        if (dep !== node.id && this.indexById.has(dep) && !deps.includes(dep)) deps.push(dep);
      }
      this.depsById.set(node.id, deps);
    }
  }

  has(id: string): boolean {
    return this.indexById.has(id);
  }

  /** Known dependencies of `id` (unknown ids and self-dependencies left out). */
  dependenciesOf(id: string): readonly string[] {
    return this.depsById.get(id) ?? [];
  }

  /**
   * Every node upstream of `id` — its dependencies, theirs, and so on — i.e. the nodes whose
   * output is certain to exist (or be known skipped) when `id` runs. Cycle-safe; memoized.
   */
  ancestorsOf(id: string): ReadonlySet<string> {
    const cached = this.ancestorCache.get(id);
    if (cached !== undefined) return cached;
    const seen = new Set<string>();
    const pending = [...this.dependenciesOf(id)];
    while (pending.length > 0) {
      const dep = pending.pop() as string;
      if (seen.has(dep)) continue;
      seen.add(dep);
      const known = this.ancestorCache.get(dep);
      if (known !== undefined) {
        for (const a of known) seen.add(a);
        continue;
      }
      pending.push(...this.dependenciesOf(dep));
    }
    this.ancestorCache.set(id, seen);
    return seen;
  }

  /** True when `candidate` is upstream of `of`. Direct dependencies are answered without a walk. */
  isAncestor(candidate: string, of: string): boolean {
    return this.dependenciesOf(of).includes(candidate) || this.ancestorsOf(of).has(candidate);
  }

  /**
   * One cycle per back edge of a depth-first walk (in node order), each rotated to start at its
   * earliest node — so every independent loop is named, and the same input always gives the
   * same report.
   */
  findCycles(): { nodeIndex: number; cycle: string[] }[] {
    const state = new Map<string, 'active' | 'done'>();
    const cycles: { nodeIndex: number; cycle: string[] }[] = [];
    for (const root of this.indexById.keys()) {
      if (state.has(root)) continue;
      // Iterative DFS: a 500-node chain must not depend on the call stack.
      const path: string[] = [root];
      const positionOnPath = new Map<string, number>([[root, 0]]);
      const cursor: number[] = [0];
      state.set(root, 'active');
      while (path.length > 0) {
        const top = path[path.length - 1] as string;
        const deps = this.dependenciesOf(top);
        const k = cursor[cursor.length - 1] as number;
        if (k >= deps.length) {
          state.set(top, 'done');
          positionOnPath.delete(top);
          path.pop();
          cursor.pop();
          continue;
        }
        cursor[cursor.length - 1] = k + 1;
        const dep = deps[k] as string;
        const status = state.get(dep);
        if (status === 'active') {
          cycles.push(this.rotate(path.slice(positionOnPath.get(dep))));
        } else if (status === undefined) {
          state.set(dep, 'active');
          positionOnPath.set(dep, path.length);
          path.push(dep);
          cursor.push(0);
        }
      }
    }
    return cycles;
  }

  private rotate(loop: string[]): { nodeIndex: number; cycle: string[] } {
    let best = 0;
    loop.forEach((id, k) => {
      if ((this.indexById.get(id) as number) < (this.indexById.get(loop[best] as string) as number)) best = k;
    });
    const ordered = [...loop.slice(best), ...loop.slice(0, best)];
    const first = ordered[0] as string;
    return { nodeIndex: this.indexById.get(first) as number, cycle: [...ordered, first] };
  }
}

/** Unknown dependencies, self-dependencies and cycles, in node order. */
export function findDependencyProblems(nodes: readonly GraphNode[]): DependencyProblem[] {
  const graph = new DependencyGraph(nodes);
  const problems: DependencyProblem[] = [];
  nodes.forEach((node, nodeIndex) => {
    node.dependsOn.forEach((dependency, depIndex) => {
      if (dependency === node.id) problems.push({ kind: 'self', nodeIndex, depIndex });
      else if (!graph.has(dependency)) problems.push({ kind: 'unknown', nodeIndex, depIndex, dependency });
    });
  });
  for (const { nodeIndex, cycle } of graph.findCycles()) {
    const node = nodes[nodeIndex] as GraphNode;
    const depIndex = Math.max(0, node.dependsOn.indexOf(cycle[1] as string));
    problems.push({ kind: 'cycle', nodeIndex, depIndex, cycle });
  }
  return problems;
}

/**
 * Nodes ordered so that every node comes after its dependencies; otherwise in list order as far
 * as possible. For validated workflows only: throws when the graph has a cycle.
 */
export function topologicalOrder<T extends GraphNode>(nodes: readonly T[]): T[] {
  const graph = new DependencyGraph(nodes);
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const node of nodes) {
    const deps = graph.dependenciesOf(node.id);
    waitingOn.set(node.id, deps.length);
    for (const dep of deps) {
      const list = dependents.get(dep) ?? [];
      list.push(node.id);
      dependents.set(dep, list);
    }
  }
  const byId = new Map<string, T>();
  for (const node of nodes) if (!byId.has(node.id)) byId.set(node.id, node);
  const ready = [...byId.keys()].filter((id) => waitingOn.get(id) === 0);
  const order: T[] = [];
  for (let head = 0; head < ready.length; head++) {
    const id = ready[head] as string;
    order.push(byId.get(id) as T);
    for (const dependent of dependents.get(id) ?? []) {
      const left = (waitingOn.get(dependent) as number) - 1;
      waitingOn.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  if (order.length !== byId.size) throw new Error('topologicalOrder: the dependency graph has a cycle');
  return order;
}
