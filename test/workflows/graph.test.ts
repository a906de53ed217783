import { describe, expect, it } from 'vitest';
import { DependencyGraph, findDependencyProblems, formatCycle, topologicalOrder } from '../../src/workflows/graph.js';
import type { GraphNode } from '../../src/workflows/graph.js';

const node = (id: string, ...dependsOn: string[]): GraphNode => ({ id, dependsOn });

describe('findDependencyProblems', () => {
  it('finds nothing wrong with a diamond', () => {
    expect(findDependencyProblems([node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b', 'c')])).toEqual([]);
  });

  it('reports unknown and self dependencies with their positions', () => {
    expect(findDependencyProblems([node('a'), node('b', 'a', 'x', 'b')])).toEqual([
      { kind: 'unknown', nodeIndex: 1, depIndex: 1, dependency: 'x' },
      { kind: 'self', nodeIndex: 1, depIndex: 2 },
    ]);
  });

  it('names a cycle in order, starting at its earliest node', () => {
    // a -> c -> b -> a: a depends on c, c on b, b on a
    expect(findDependencyProblems([node('a', 'c'), node('b', 'a'), node('c', 'b'), node('d', 'a')])).toEqual([
      { kind: 'cycle', nodeIndex: 0, depIndex: 0, cycle: ['a', 'c', 'b', 'a'] },
    ]);
  });

  it('reports each independent cycle', () => {
    const problems = findDependencyProblems([node('a', 'b'), node('b', 'a'), node('c', 'd'), node('d', 'c'), node('e', 'a', 'c')]);
    expect(problems.map((p) => (p.kind === 'cycle' ? formatCycle(p.cycle) : p.kind))).toEqual(['a -> b -> a', 'c -> d -> c']);
  });

  it('reports two loops through one node separately', () => {
    const problems = findDependencyProblems([node('a', 'b', 'c'), node('b', 'a'), node('c', 'a')]);
    expect(problems.map((p) => (p.kind === 'cycle' ? formatCycle(p.cycle) : p.kind))).toEqual(['a -> b -> a', 'a -> c -> a']);
  });
});

describe('topologicalOrder', () => {
  it('puts dependencies first and otherwise keeps the written order', () => {
    const order = topologicalOrder([node('test', 'build'), node('lint'), node('build'), node('ship', 'test', 'lint')]);
    expect(order.map((n) => n.id)).toEqual(['lint', 'build', 'test', 'ship']);
  });

  it('handles a long chain written backwards without recursion', () => {
    const nodes = Array.from({ length: 5000 }, (_, i) => node(`n${i}`, ...(i < 4999 ? [`n${i + 1}`] : [])));
    const order = topologicalOrder(nodes);
    expect(order[0]?.id).toBe('n4999');
    expect(order[4999]?.id).toBe('n0');
  });

  it('throws on a cycle (validated workflows have none)', () => {
    expect(() => topologicalOrder([node('a', 'b'), node('b', 'a')])).toThrow('cycle');
  });
});

describe('DependencyGraph.ancestorsOf', () => {
  const graph = new DependencyGraph([node('a'), node('b', 'a'), node('c', 'a'), node('d', 'b'), node('e', 'd', 'c')]);
  it('collects every upstream node', () => {
    expect([...graph.ancestorsOf('e')].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...graph.ancestorsOf('d')].sort()).toEqual(['a', 'b']);
    expect([...graph.ancestorsOf('a')]).toEqual([]);
  });
  it('knows siblings are not upstream', () => {
    expect(graph.isAncestor('c', 'd')).toBe(false);
    expect(graph.isAncestor('a', 'd')).toBe(true);
    expect(graph.isAncestor('e', 'a')).toBe(false);
  });
  it('terminates on cycles', () => {
    const cyclic = new DependencyGraph([node('a', 'b'), node('b', 'a')]);
    expect([...cyclic.ancestorsOf('a')].sort()).toEqual(['a', 'b']);
  });
});
