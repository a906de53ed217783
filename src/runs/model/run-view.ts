import type { z } from 'zod';
import type { RunEvent } from './events.js';
import type { RunLocation } from '../../coordination/index.js';
import type { RunViewSchema } from './schemas.js';
import type { RunRecord } from './types.js';
import { toDrawNodes, type DrawNode, type Permissions, type RawNode } from '../../workflows/index.js';
import { capNode } from './permission-cap.js';

/** A run as shown (schemas.ts `RunViewSchema`), with variables and events in the detail view. */
export type RunView = z.infer<typeof RunViewSchema> & {
  variables?: Record<string, string>;
  events?: RunEvent[];
  graph?: DrawNode[];
  serverId?: string;
  worktreeHome?: { id: string; host: string | null; path: string | null; liveServers: number };
  waitingFor?: string;
  definitionChanged?: boolean;
};

/**
 * The run's DAG as it runs: from its definition snapshot (a later edit of the workflow does not
 * redraw a run), for the dashboard to draw. A snapshot is a definition that validated when the
 * run started; anything else draws as nothing.
 */
function graphOf(definition: unknown, cap: Permissions | null | undefined): DrawNode[] {
  const { nodes, permissions } = (definition as { nodes?: unknown; permissions?: Permissions } | null) ?? {};
  if (!Array.isArray(nodes) || !nodes.every((node) => typeof (node as RawNode | null)?.id === 'string')) return [];
  // With the run's own permissions applied, as its agents run (permission-cap.ts).
  return toDrawNodes({ nodes: nodes as RawNode[], permissions }).map((node) => capNode(node, cap));
}

/**
 * What the API and CLI show of a run: the record without its definition snapshot (the workflow
 * endpoints serve definitions) and, outside the detail view, without trigger variables (a webhook
 * payload can be 256 KiB).
 */
export function toRunView(
  run: RunRecord,
  options: { detail?: boolean; events?: RunEvent[]; location?: RunLocation; definitionChanged?: boolean | undefined } = {},
): RunView {
  const { definition, variables, ...rest } = run;
  return {
    ...rest,
    ...(options.detail ? { variables, graph: graphOf(definition, run.permissions) } : {}),
    ...(options.definitionChanged !== undefined ? { definitionChanged: options.definitionChanged } : {}),
    ...(options.events ? { events: options.events } : {}),
    ...(options.location ? locationView(run, options.location) : {}),
  };
}

/** Which server holds the run and where its worktree is (a shared database, docs/scaling.md); why a pending run waits. */
function locationView(run: RunRecord, { serverId, home }: RunLocation) {
  const worktreeHome = home && { id: home.id, host: home.host, path: home.path, liveServers: home.servers };
  const stranded = run.status === 'pending' && home !== null && home.servers === 0;
  const where = home && `${home.id}${home.host ? ` (host ${home.host}, SVC_HOME ${home.path})` : ''}`;
  // Absent rather than null when unknown: a run copied in from a file store reads as it did there.
  return {
    ...(serverId !== null ? { serverId } : {}),
    ...(worktreeHome ? { worktreeHome } : {}),
    ...(stranded ? { waitingFor: `a server of home ${where}, which holds the run's worktree; none is running there: start one, or abandon the run` } : {}),
  };
}
