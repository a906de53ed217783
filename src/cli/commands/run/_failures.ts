import type { RunView } from '../../../client/index.js';
import type { Styler } from '../../output.js';

/**
 * How a failed node's last lines are shown (`svc run`, `svc watch`, `svc runs show`): indented
 * under the node, dimmed, so the failure reads in place; the whole log is `svc runs logs`.
 */
export function indentTail(tail: string, p: Pick<Styler, 'dim'>, indent = '  │ '): string {
  return tail
    .split('\n')
    .map((line) => p.dim(indent) + line)
    .join('\n');
}

/** The nodes whose failure `continue_on_error` tolerated, said on the run's last line: `1 failure tolerated (lint)`; '' for none. */
export function toleratedNote(run: Pick<RunView, 'nodes'>): string {
  const ids = Object.entries(run.nodes).flatMap(([id, state]) => (state.status === 'failed' && state.tolerated ? [id] : []));
  if (ids.length === 0) return '';
  return `${ids.length} failure${ids.length === 1 ? '' : 's'} tolerated (${ids.join(', ')})`;
}
