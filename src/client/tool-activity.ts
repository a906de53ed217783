import type { RunView } from './types.js';

/** How many refused calls a note names before it says "…". */
const NAMED = 3;

/** The tool calls a run's agents were refused: how many, and the summaries its nodes kept. */
export function deniedToolCalls(run: Pick<RunView, 'nodes'>): { count: number; summaries: string[] } {
  let count = 0;
  const summaries: string[] = [];
  for (const node of Object.values(run.nodes)) {
    const denied = node.toolsDenied ?? [];
    count += node.toolsDeniedCount ?? denied.length;
    summaries.push(...denied);
  }
  return { count, summaries };
}

/**
 * What the CLI and the dashboard add to a run's outcome when its agent was refused tools, so that
 * such a run never reads as a plain success (docs/decisions.md, "Tool activity"):
 * `the agent was denied 2 tool calls: Write src/a.ts, Bash: npm test`. Undefined when none was.
 */
export function deniedToolsNote(run: Pick<RunView, 'nodes'>): string | undefined {
  const { count, summaries } = deniedToolCalls(run);
  if (count === 0) return undefined;
  const named = summaries.slice(0, NAMED).join(', ');
  const more = count > Math.min(summaries.length, NAMED) ? ', …' : '';
  return `the agent was denied ${count} tool call${count === 1 ? '' : 's'}${named ? `: ${named}${more}` : ''}`;
}

/** `its sandbox refused 2 calls` when a run's agents were refused by their OS sandbox (docs/decisions.md, "Agents in a sandbox"). */
export function sandboxRefusalsNote(run: Pick<RunView, 'nodes'>): string | undefined {
  const count = Object.values(run.nodes).reduce((sum, node) => sum + (node.sandboxDenied ?? 0), 0);
  return count === 0 ? undefined : `its sandbox refused ${count} call${count === 1 ? '' : 's'}`;
}

/** What a run's outcome line adds: denied tool calls, and sandbox refusals; undefined when neither. */
export function refusalsNote(run: Pick<RunView, 'nodes'>): string | undefined {
  return [deniedToolsNote(run), sandboxRefusalsNote(run)].filter(Boolean).join('; ') || undefined;
}
