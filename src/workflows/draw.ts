/**
 * A workflow's DAG drawn for a terminal, and as a Mermaid `flowchart TD`. Pure functions.
 *
 * The terminal drawing puts nodes in layers by depth (a node sits one layer below its deepest
 * dependency), one row of boxes per layer, joined by a bus line. Exact edge routing does not fit in
 * plain text once edges skip layers or cross, so every box also lists its dependencies (`← a, b`):
 * the bus shows the flow, the labels are the truth.
 *
 *   ┌────────┐
 *   │ plan   │
 *   │ prompt │
 *   └────────┘
 *        │
 *     ┌──┴──────────────┐
 *     ▼                 ▼
 *   ┌────────┐      ┌────────┐
 *   │ …      │      │ …      │
 */

// The permissions module, not schema.ts: the dashboard and the CLI draw without loading zod.
import { DEFAULT_NODE_PERMISSIONS, type Permissions } from '../shared/permissions.js';
import type { RawNode } from './schema.js';

export interface DrawNode {
  readonly id: string;
  readonly dependsOn: readonly string[];
  /** What the node does: `prompt`, `bash`, `approval`, `command: review`. */
  readonly kind: string;
  /** The node has a `when` condition. */
  readonly conditional: boolean;
  /** Agent nodes: what the agent may do (the node's, else the workflow's, else `edit`). */
  readonly permissions?: Permissions;
}

export interface DrawOptions {
  /** Plain ASCII (`+-|v`) instead of box-drawing characters. */
  readonly ascii?: boolean;
  /** Wrap a layer's boxes onto more rows past this many columns. @default 100 */
  readonly width?: number;
}

/** The drawing's view of a definition as written (snake_case, as the API answers it). */
export function toDrawNodes(workflow: { readonly nodes: readonly RawNode[]; readonly permissions?: Permissions | undefined }): DrawNode[] {
  return workflow.nodes.map((node) => {
    const runsAgent = node.bash === undefined && node.approval === undefined && node.wait === undefined;
    return {
      id: node.id,
      dependsOn: [...new Set(node.depends_on ?? [])],
      kind:
        node.command !== undefined
          ? `command: ${node.command}`
          : node.bash !== undefined
            ? 'bash'
            : node.approval !== undefined
              ? 'approval'
              : node.wait !== undefined
                ? 'wait'
                : 'prompt',
      conditional: node.when !== undefined,
      ...(runsAgent ? { permissions: node.permissions ?? workflow.permissions ?? DEFAULT_NODE_PERMISSIONS } : {}),
    };
  });
}

/** Nodes grouped by depth, in list order within a layer. A cycle (invalid input) is cut where found. */
export function layersOf(nodes: readonly DrawNode[]): DrawNode[][] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (node: DrawNode): number => {
    const known = depth.get(node.id);
    if (known !== undefined) return known;
    if (visiting.has(node.id)) return 0;
    visiting.add(node.id);
    let d = 0;
    for (const dep of node.dependsOn) {
      const parent = byId.get(dep);
      if (parent !== undefined && parent !== node) d = Math.max(d, depthOf(parent) + 1);
    }
    visiting.delete(node.id);
    depth.set(node.id, d);
    return d;
  };
  const layers: DrawNode[][] = [];
  for (const node of nodes) (layers[depthOf(node)] ??= []).push(node);
  return layers.filter((layer) => layer !== undefined);
}

const GLYPHS = {
  unicode: { tl: '┌', tr: '┐', bl: '└', br: '┘', h: '─', v: '│', arrow: '▼', dep: '←' },
  ascii: { tl: '+', tr: '+', bl: '+', br: '+', h: '-', v: '|', arrow: 'v', dep: '<-' },
};

/** The bus character at a column: which of up, down, left, right it connects. */
function junction(up: boolean, down: boolean, left: boolean, right: boolean, ascii: boolean): string {
  if (!up && !down) return ascii ? '-' : '─';
  if (!left && !right) return ascii ? '|' : '│';
  if (ascii) return '+';
  const key = `${up ? 'u' : ''}${down ? 'd' : ''}${left ? 'l' : ''}${right ? 'r' : ''}`;
  const table: Record<string, string> = { udlr: '┼', udl: '┤', udr: '├', ulr: '┴', ul: '┘', ur: '└', dlr: '┬', dl: '┐', dr: '┌' };
  return table[key] ?? '┼';
}

interface Placed {
  readonly lines: string[];
  readonly center: number;
}

function boxRow(nodes: readonly DrawNode[], ascii: boolean): { text: string[]; centers: number[] } {
  const g = ascii ? GLYPHS.ascii : GLYPHS.unicode;
  const gap = 2;
  const placed: Placed[] = [];
  let column = 0;
  for (const node of nodes) {
    const content = [node.id, node.kind + (node.conditional ? ' · when' : '')];
    if (node.dependsOn.length > 0) content.push(`${g.dep} ${node.dependsOn.join(', ')}`);
    const inner = Math.max(...content.map((line) => line.length));
    const lines = [g.tl + g.h.repeat(inner + 2) + g.tr, ...content.map((line) => `${g.v} ${line.padEnd(inner)} ${g.v}`), g.bl + g.h.repeat(inner + 2) + g.br];
    placed.push({ lines, center: column + Math.floor((inner + 4) / 2) });
    column += inner + 4 + gap;
  }
  const height = Math.max(...placed.map((p) => p.lines.length));
  const text: string[] = [];
  for (let row = 0; row < height; row++) {
    text.push(
      placed
        .map((p) => (p.lines[row] ?? '').padEnd((p.lines[0] as string).length))
        .join(' '.repeat(gap))
        .trimEnd(),
    );
  }
  return { text, centers: placed.map((p) => p.center) };
}

function bus(uppers: readonly number[], lowers: readonly number[], ascii: boolean): string[] {
  const g = ascii ? GLYPHS.ascii : GLYPHS.unicode;
  const all = [...uppers, ...lowers];
  const min = Math.min(...all);
  const max = Math.max(...all);
  const mark = (columns: readonly number[], glyph: string) => {
    const line = Array<string>(max + 1).fill(' ');
    for (const c of columns) line[c] = glyph;
    return line.join('').trimEnd();
  };
  // A straight line needs no bus: just the stem and the arrow.
  if (min === max) return [mark(uppers, g.v), mark(lowers, g.arrow)];
  let middle = ' '.repeat(min);
  for (let x = min; x <= max; x++) middle += junction(uppers.includes(x), lowers.includes(x), x > min, x < max, ascii);
  return [mark(uppers, g.v), middle, mark(lowers, g.arrow)];
}

/** The terminal drawing of a DAG, one string with a trailing newline. Rows are centred on the widest. */
export function drawDag(nodes: readonly DrawNode[], options: DrawOptions = {}): string {
  const ascii = options.ascii ?? false;
  const width = options.width ?? 100;
  const rows: { nodes: DrawNode[]; firstOfLayer: boolean }[] = [];
  for (const layer of layersOf(nodes)) {
    // Wrap a wide layer: fill rows greedily up to `width` columns.
    let row: DrawNode[] = [];
    rows.push({ nodes: row, firstOfLayer: true });
    for (const node of layer) {
      if (row.length > 0 && (boxRow([...row, node], ascii).text[0] as string).length > width) {
        row = [];
        rows.push({ nodes: row, firstOfLayer: false });
      }
      row.push(node);
    }
  }
  const drawn = rows.map((row) => ({ ...row, ...boxRow(row.nodes, ascii) }));
  const widest = Math.max(0, ...drawn.map((row) => (row.text[0] ?? '').length));
  const hasDependents = new Set(nodes.flatMap((node) => node.dependsOn));
  const out: string[] = [];
  let previous: { centers: number[]; nodes: DrawNode[] } | undefined;
  for (const row of drawn) {
    // Centre every row on one axis, so single boxes line up whatever their widths.
    let shift = Math.floor(widest / 2) - Math.floor((row.text[0] ?? '').length / 2);
    if (previous !== undefined && row.firstOfLayer) {
      const linked = previous.centers.filter((_, k) => hasDependents.has(previous?.nodes[k]?.id as string));
      const uppers = linked.length > 0 ? linked : previous.centers;
      // One box under one box: line them up, so a chain draws as a straight line.
      const aligned = uppers.length === 1 && row.centers.length === 1 ? (uppers[0] as number) - (row.centers[0] as number) : -1;
      if (aligned >= 0) shift = aligned;
      out.push(
        ...bus(
          uppers,
          row.centers.map((c) => c + shift),
          ascii,
        ),
      );
    } else if (previous !== undefined) {
      out.push('');
    }
    out.push(...row.text.map((line) => (' '.repeat(shift) + line).trimEnd()));
    previous = { centers: row.centers.map((c) => c + shift), nodes: row.nodes };
  }
  return `${out.join('\n')}\n`;
}

const mermaidText = (text: string) => text.replace(/"/g, '#quot;');

/** Mermaid `flowchart TD`; ids become n0, n1… because node ids may collide with Mermaid syntax (`end`, `o`, `x`). */
export function toMermaid(nodes: readonly DrawNode[]): string {
  const ids = new Map(nodes.map((node, index) => [node.id, `n${index}`]));
  const lines = ['flowchart TD'];
  nodes.forEach((node, index) => {
    const label = mermaidText(`${node.id} (${node.kind})`);
    lines.push(node.kind === 'approval' ? `  n${index}{"${label}"}` : `  n${index}["${label}"]`);
  });
  for (const node of nodes) {
    for (const dep of node.dependsOn) {
      const from = ids.get(dep);
      if (from !== undefined) lines.push(node.conditional ? `  ${from} -.->|when| ${ids.get(node.id)}` : `  ${from} --> ${ids.get(node.id)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
