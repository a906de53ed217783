import type { z } from 'zod';
import type { RunEvent } from './events.js';
import type { RunViewSchema } from './schemas.js';
import type { RunRecord } from './types.js';
import { toDrawNodes, type DrawNode } from '../workflows/draw.js';
import type { RawNode } from '../workflows/schema.js';

/** A run as shown (schemas.ts `RunViewSchema`), with variables and events in the detail view. */
export type RunView = z.infer<typeof RunViewSchema> & { variables?: Record<string, string>; events?: RunEvent[]; graph?: DrawNode[] };

/**
 * The run's DAG as it runs: from its definition snapshot (a later edit of the workflow does not
 * redraw a run), for the dashboard to draw. A snapshot is a definition that validated when the
 * run started; anything else draws as nothing.
 */
function graphOf(definition: unknown): DrawNode[] {
  const nodes = (definition as { nodes?: unknown } | null)?.nodes;
  if (!Array.isArray(nodes) || !nodes.every((node) => typeof (node as RawNode | null)?.id === 'string')) return [];
  return toDrawNodes({ nodes: nodes as RawNode[] });
}

/**
 * What the API and CLI show of a run: the record without its definition snapshot (the workflow
 * endpoints serve definitions) and, outside the detail view, without trigger variables (a webhook
 * payload can be 256 KiB).
 */
export function toRunView(run: RunRecord, options: { detail?: boolean; events?: RunEvent[] } = {}): RunView {
  const { definition, variables, ...rest } = run;
  return {
    ...rest,
    ...(options.detail ? { variables, graph: graphOf(definition) } : {}),
    ...(options.events ? { events: options.events } : {}),
  };
}
