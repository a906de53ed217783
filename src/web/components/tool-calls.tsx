import type { RunEvent } from '../../client/types.js';

type ToolEvent = Extract<RunEvent, { type: 'agent_tool' }>;

const LABEL: Record<ToolEvent['status'], string> = { ok: 'ran', failed: 'failed', denied: 'denied' };

/**
 * A node's tool calls as its agent made them (docs/decisions.md, "Tool activity"), from the run's
 * events: live while it runs, and replayed from the stored events afterwards. The status is a word,
 * not only a colour.
 */
export function ToolCalls({ nodeId, events }: { nodeId: string; events: RunEvent[] }) {
  const calls = events.filter((event): event is ToolEvent => event.type === 'agent_tool' && event.nodeId === nodeId);
  if (calls.length === 0) return null;
  return (
    <ul class="tool-calls" data-tool-calls={nodeId} aria-label={`Tool calls of ${nodeId}`}>
      {calls.map((call) => (
        <li key={call.seq} data-status={call.status} class={`tool-${call.status}`}>
          <span class="tool-status">{LABEL[call.status]}</span> <span class="mono">{call.summary}</span>
        </li>
      ))}
    </ul>
  );
}
