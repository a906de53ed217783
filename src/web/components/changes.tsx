import { useMemo, useState } from 'preact/hooks';
import type { PatchLineKind } from '../../client/views.js';
import { patchLines } from '../../client/views.js';
import type { RunDetail } from '../../client/types.js';
import { client } from '../api.js';
import { useLoad } from '../hooks.js';
import { Landing } from './landing.js';
import { ErrorNote } from './status.js';

const short = (sha: string | null) => (sha ? sha.slice(0, 10) : '—');

/** Consecutive lines of one kind as one block: a 1 MiB patch is tens of thousands of lines, but far fewer blocks. */
function Patch({ text }: { text: string }) {
  const blocks = useMemo(() => {
    const merged: Array<{ kind: PatchLineKind; text: string }> = [];
    for (const line of patchLines(text)) {
      const last = merged.at(-1);
      if (last?.kind === line.kind) last.text += `${line.text}\n`;
      else merged.push({ kind: line.kind, text: `${line.text}\n` });
    }
    return merged;
  }, [text]);
  return (
    <pre class="output diff" data-patch>
      {blocks.map((block, index) => (
        <span key={index} class={`diff-${block.kind}`}>
          {block.text}
        </span>
      ))}
    </pre>
  );
}

/**
 * A run's changes (docs/decisions.md, "A commit per node, and the diff"): the files its commits changed, with
 * lines added and removed, and the coloured patch — of the whole run, or of one node. Loaded again
 * whenever the run's branch (or the node's commit) moves.
 */
export function Changes({ run }: { run: RunDetail }) {
  const [node, setNode] = useState('');
  const changed = Object.entries(run.nodes).filter(([, state]) => state.commit);
  const head = node ? run.nodes[node]?.commit : run.headCommit;
  const diff = useLoad(() => client.runs.diff(run.id, node ? { node } : {}), `${run.id} ${node} ${head ?? ''}`);
  const d = diff.data;
  const added = d?.files.reduce((sum, file) => sum + file.insertions, 0) ?? 0;
  const removed = d?.files.reduce((sum, file) => sum + file.deletions, 0) ?? 0;
  return (
    <section class="changes" aria-labelledby="changes-title" data-changes={node || 'run'} aria-busy={diff.loading}>
      <h2 id="changes-title">Changes</h2>
      <Landing run={run} />
      <label>
        Show{' '}
        <select name="changes-node" value={node} onChange={(e) => setNode(e.currentTarget.value)}>
          <option value="">the whole run</option>
          {changed.map(([id]) => (
            <option key={id} value={id}>
              node {id}
            </option>
          ))}
        </select>
      </label>
      <ErrorNote error={diff.error} />
      {!d ? (
        diff.error ? null : (
          <p class="note">Loading…</p>
        )
      ) : d.files.length === 0 ? (
        <p class="note">No changes on {d.branch}.</p>
      ) : (
        <>
          <p class="muted">
            <span class="mono">
              {d.branch} {short(d.base)}..{short(d.head)}
            </span>
            : {d.files.length} {d.files.length === 1 ? 'file' : 'files'}, <span class="diff-added">+{added}</span> <span class="diff-removed">−{removed}</span>
          </p>
          <div class="table-wrap">
            <table class="changes-files">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Change</th>
                  <th scope="col">Added</th>
                  <th scope="col">Removed</th>
                </tr>
              </thead>
              <tbody>
                {d.files.map((file) => (
                  <tr key={file.path} data-file={file.path}>
                    <td class="mono">
                      {file.oldPath ? `${file.oldPath} → ` : ''}
                      {file.path}
                    </td>
                    <td>{file.status}</td>
                    <td class={file.insertions ? 'diff-added' : ''}>{file.binary ? 'binary' : file.insertions ? `+${file.insertions}` : '0'}</td>
                    <td class={file.deletions ? 'diff-removed' : ''}>{file.binary ? '' : file.deletions ? `−${file.deletions}` : '0'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Patch text={d.patch} />
          {d.truncated ? <p class="muted">The patch is cut at 1 MiB; the list of files is complete.</p> : null}
        </>
      )}
    </section>
  );
}
