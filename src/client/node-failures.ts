import type { RunView } from './types.js';

/** The nodes whose failure `continue_on_error` tolerated: the run went on as after a success. */
export function toleratedNodes(run: Pick<RunView, 'nodes'>): string[] {
  return Object.entries(run.nodes).flatMap(([id, state]) => (state.status === 'failed' && state.tolerated ? [id] : []));
}

/**
 * Said on a run's last line (`svc run`, `svc runs show`) and beside its state on the dashboard, so
 * a completed run that tolerated failures never reads as a plain success: `1 failure tolerated
 * (lint)`; '' for none.
 */
export function toleratedNote(run: Pick<RunView, 'nodes'>): string {
  const ids = toleratedNodes(run);
  if (ids.length === 0) return '';
  return `${ids.length} failure${ids.length === 1 ? '' : 's'} tolerated (${ids.join(', ')})`;
}
