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

/** Said on a run's last line; shared with the dashboard, so it lives in the client. */
export { toleratedNote } from '../../../client/index.js';
