import type { OutputCut } from '../run-events.js';

/** What of a node's output and log was cut, and where the rest is (docs/decisions.md, "Node output"). */
export function CutNotes({ nodeId, output, log }: { nodeId: string; output: OutputCut; log: boolean }) {
  return (
    <>
      {output ? (
        <p class="muted" data-cut="output">
          {output === 'stored'
            ? "Output truncated at 64 KiB; the whole output is in the run's artifacts: "
            : "Output shown up to 64 KiB; the rest is in the run's artifacts: "}
          <span class="mono">{output === 'stored' ? `${nodeId}.out` : `${nodeId}.log`}</span>.
        </p>
      ) : null}
      {log ? (
        <p class="muted" data-cut="log">
          The node's log (<span class="mono">{nodeId}.log</span>) reached its 32 MiB limit; what the node printed after that is not kept.
        </p>
      ) : null}
    </>
  );
}
