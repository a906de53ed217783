// The DAG drawings of `svc workflow show|graph` (issue 3): layers by depth, boxes and a bus in
// plain text, and Mermaid.
import { describe, expect, it } from 'vitest';
import { drawDag, toDrawNodes, toMermaid } from '../../src/workflows/index.js';
import { layersOf, type DrawNode } from '../../src/workflows/draw.js';

const node = (id: string, dependsOn: string[] = [], kind = 'bash', conditional = false): DrawNode => ({ id, dependsOn, kind, conditional });

describe('layersOf', () => {
  it('puts a node one layer below its deepest dependency, list order within a layer', () => {
    const nodes = [node('d', ['a', 'c']), node('a'), node('b', ['a']), node('c', ['b']), node('e')];
    expect(layersOf(nodes).map((layer) => layer.map((n) => n.id))).toEqual([['a', 'e'], ['b'], ['c'], ['d']]);
  });

  it('does not loop on a cycle (invalid input is still drawable)', () => {
    expect(
      layersOf([node('a', ['b']), node('b', ['a'])])
        .flat()
        .map((n) => n.id)
        .sort(),
    ).toEqual(['a', 'b']);
  });
});

describe('drawDag', () => {
  it('draws a fan-out and fan-in with boxes, a bus, and each box naming its dependencies', () => {
    const nodes = [node('scope'), node('left', ['scope'], 'prompt'), node('right', ['scope'], 'prompt'), node('merge', ['left', 'right'], 'prompt', true)];
    expect(drawDag(nodes)).toBe(
      [
        '        ┌───────┐',
        '        │ scope │',
        '        │ bash  │',
        '        └───────┘',
        '            │',
        '     ┌──────┴─────┐',
        '     ▼            ▼',
        '┌─────────┐  ┌─────────┐',
        '│ left    │  │ right   │',
        '│ prompt  │  │ prompt  │',
        '│ ← scope │  │ ← scope │',
        '└─────────┘  └─────────┘',
        '     │            │',
        '     └──────┬─────┘',
        '            ▼',
        '    ┌───────────────┐',
        '    │ merge         │',
        '    │ prompt · when │',
        '    │ ← left, right │',
        '    └───────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('lines a box up under the one box it hangs from', () => {
    const lines = drawDag([node('a'), node('bb'), node('ccc'), node('d', ['bb'])]).split('\n');
    expect(lines.slice(4, 7)).toEqual(['              │', '              ▼', '          ┌──────┐']);
    expect(lines[1]).toBe('│ a    │  │ bb   │  │ ccc  │');
  });

  it('draws a straight chain without a bus, and plain ASCII on request', () => {
    expect(drawDag([node('a'), node('b', ['a'])], { ascii: true })).toBe(
      ['+------+', '| a    |', '| bash |', '+------+', '    |', '    v', '+------+', '| b    |', '| bash |', '| <- a |', '+------+', ''].join('\n'),
    );
  });

  it('wraps a layer wider than the width onto more rows', () => {
    const wide = Array.from({ length: 8 }, (_, k) => node(`node-number-${k}`));
    const lines = drawDag(wide, { width: 60 }).split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(60);
    for (const n of wide) expect(lines.some((l) => l.includes(n.id))).toBe(true);
  });
});

describe('toDrawNodes', () => {
  it("reads kinds, dependencies, conditions and agents' permissions from a definition as written", () => {
    const nodes = toDrawNodes({
      permissions: 'read',
      nodes: [
        { id: 'a', command: 'plan' },
        { id: 'b', bash: 'ls', depends_on: ['a', 'a'] },
        { id: 'c', approval: { message: 'ok?' }, depends_on: ['b'], when: "$b.output == 'x'" },
        { id: 'd', prompt: 'p', depends_on: ['c'], permissions: 'edit' },
      ],
    });
    expect(nodes).toEqual([
      { id: 'a', dependsOn: [], kind: 'command: plan', conditional: false, permissions: 'read' },
      { id: 'b', dependsOn: ['a'], kind: 'bash', conditional: false },
      { id: 'c', dependsOn: ['b'], kind: 'approval', conditional: true },
      { id: 'd', dependsOn: ['c'], kind: 'prompt', conditional: false, permissions: 'edit' },
    ]);
    expect(toDrawNodes({ nodes: [{ id: 'e', prompt: 'p' }] })).toEqual([{ id: 'e', dependsOn: [], kind: 'prompt', conditional: false, permissions: 'edit' }]);
  });
});

describe('toMermaid', () => {
  it('writes a flowchart TD with safe ids, quoted labels, rhombus gates and dotted conditional edges', () => {
    const nodes = [node('end'), node('gate', ['end'], 'approval'), node('o', ['gate'], 'prompt "quoted"', true)];
    expect(toMermaid(nodes)).toBe(
      ['flowchart TD', '  n0["end (bash)"]', '  n1{"gate (approval)"}', '  n2["o (prompt #quot;quoted#quot;)"]', '  n0 --> n1', '  n1 -.->|when| n2', ''].join(
        '\n',
      ),
    );
  });
});
