import type { Styler } from '../../output.js';

/**
 * One resolved tool call of an agent, as a line (docs/decisions.md, "Tool activity"):
 * `tool: Write src/a.ts`, `tool failed: exec: npm test (exit 1)`, `tool denied: Write src/a.ts`.
 * The summary was made one safe line by the server.
 */
export function toolLine(p: Styler, call: { summary: string; status: 'ok' | 'denied' | 'failed' }): string {
  if (call.status === 'denied') return `${p.yellow('tool denied:')} ${call.summary}`;
  if (call.status === 'failed') return `${p.red('tool failed:')} ${call.summary}`;
  return `${p.dim('tool:')} ${call.summary}`;
}

/** Tool calls stream with `--verbose`; a refused one is shown either way, as it happens. */
export const showsToolCall = (status: string, verbose: boolean): boolean => verbose || status === 'denied';
