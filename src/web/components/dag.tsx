import { Graph, layout } from '@dagrejs/dagre';
import { useMemo } from 'preact/hooks';
import type { DrawNode } from '../../client/views.js';

// Wide enough for the longest kind and state: `approval · waiting_approval`.
const NODE_WIDTH = 190;
const NODE_HEIGHT = 48;

interface Placed {
  nodes: Array<{ node: DrawNode; x: number; y: number }>;
  edges: Array<{ from: string; to: string; points: Array<{ x: number; y: number }> }>;
  width: number;
  height: number;
}

/** Lays the DAG out top to bottom with dagre (dependencies above what waits for them). */
function place(nodes: readonly DrawNode[]): Placed {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 40, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids = new Set(nodes.map((node) => node.id));
  for (const node of nodes) graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const node of nodes) for (const dep of node.dependsOn) if (ids.has(dep) && dep !== node.id) graph.setEdge(dep, node.id);
  layout(graph);
  const label = graph.graph();
  return {
    nodes: nodes.map((node) => {
      const { x, y } = graph.node(node.id) as { x: number; y: number };
      return { node, x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 };
    }),
    edges: graph.edges().map((edge) => ({ from: edge.v, to: edge.w, points: (graph.edge(edge) as { points: Array<{ x: number; y: number }> }).points })),
    width: label.width ?? NODE_WIDTH,
    height: label.height ?? NODE_HEIGHT,
  };
}

export interface DagProps {
  nodes: readonly DrawNode[];
  /** Node id → state (`pending`, `running`, `completed`, …); absent in a workflow's own drawing. */
  states?: Record<string, string>;
  /** Failed nodes whose failure `continue_on_error` tolerated: drawn as failed, and marked. */
  tolerated?: readonly string[];
  selected?: string | undefined;
  onSelect?: (id: string) => void;
  label: string;
}

/**
 * The workflow's DAG as SVG, each node coloured by its state and named in words too. With
 * `onSelect`, nodes are buttons: focusable and chosen with Enter or Space as well as a click.
 */
export function Dag({ nodes, states, tolerated = [], selected, onSelect, label }: DagProps) {
  const key = nodes.map((node) => `${node.id}<${node.dependsOn.join(',')}`).join(';');
  const placed = useMemo(() => place(nodes), [key]);
  if (nodes.length === 0) return <p class="note">This workflow has no nodes to draw.</p>;
  return (
    <div class="dag-wrap">
      <svg class="dag" role="group" aria-label={label} viewBox={`0 0 ${placed.width} ${placed.height}`} width={placed.width} height={placed.height}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
          </marker>
        </defs>
        {placed.edges.map((edge) => (
          <polyline key={`${edge.from}-${edge.to}`} class="edge" points={edge.points.map((p) => `${p.x},${p.y}`).join(' ')} marker-end="url(#arrow)" />
        ))}
        {placed.nodes.map(({ node, x, y }) => {
          const state = states?.[node.id];
          const stateText = state && tolerated.includes(node.id) ? `${state}, tolerated` : state;
          const activate = onSelect ? () => onSelect(node.id) : undefined;
          return (
            <g
              key={node.id}
              class={`dag-node${state ? ` status-${state}` : ''}${stateText !== state ? ' tolerated' : ''}${selected === node.id ? ' selected' : ''}`}
              transform={`translate(${x},${y})`}
              data-node-id={node.id}
              data-status={state}
              {...(activate
                ? {
                    role: 'button',
                    // Lower case: on an SVG element Preact sets the attribute as written, and only
                    // `tabindex` makes it focusable (`tabIndex` left the nodes out of the Tab order).
                    tabindex: 0,
                    'aria-pressed': selected === node.id,
                    'aria-label': `${node.id}, ${node.kind}${stateText ? `, ${stateText}` : ''}`,
                    onClick: activate,
                    onKeyDown: (e: KeyboardEvent) => {
                      if (e.key === 'Enter' || e.key === ' ') {
                        e.preventDefault();
                        activate();
                      }
                    },
                  }
                : {})}
            >
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx="6" />
              <text x="10" y="19" class="dag-id">
                {node.id.length > 20 ? `${node.id.slice(0, 19)}…` : node.id}
              </text>
              <text x="10" y="37" class="dag-kind">
                {node.kind}
                {node.conditional ? ' · when' : ''}
                {stateText ? ` · ${stateText}` : ''}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
