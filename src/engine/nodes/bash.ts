import { formatDuration, renderBash } from '../../workflows/index.js';
import { spawnGroup } from '../process-group.js';
import { NodeCancelled, NodeFailure, type NodeRunner } from './types.js';

/** Output kept in memory for `$id.output`; beyond it the artifacts file still has everything. */
const MAX_CAPTURED_STDOUT = 16 * 1024 * 1024;

/**
 * `bash` nodes: `bash -c` in the run's cwd, in their own process group. User-controlled values
 * arrive only as environment variables; `$id.output` is spliced as a quoted shell word.
 */
export const runBashNode: NodeRunner = async ({ run, node, outputs, variables, signal, onOutput }) => {
  if (node.action.kind !== 'bash') throw new Error(`runBashNode got a ${node.action.kind} node`);
  if (signal.aborted) throw new NodeCancelled();
  const script = renderBash(node.action.bash, outputs);
  const proc = spawnGroup('bash', ['-c', script], { cwd: run.cwd, env: { ...process.env, ...variables } });
  let stdout = '';
  proc.child.stdout?.setEncoding('utf8');
  proc.child.stderr?.setEncoding('utf8');
  proc.child.stdout?.on('data', (chunk: string) => {
    if (stdout.length < MAX_CAPTURED_STDOUT) stdout += chunk;
    onOutput('stdout', chunk);
  });
  proc.child.stderr?.on('data', (chunk: string) => onOutput('stderr', chunk));

  let stopped: 'timeout' | 'cancelled' | undefined;
  const timer = setTimeout(() => {
    stopped ??= 'timeout';
    void proc.terminate();
  }, node.timeoutMs);
  const onAbort = () => {
    stopped ??= 'cancelled';
    void proc.terminate();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { code, signal: killedBy } = await proc.done;
    if (stopped === 'cancelled') throw new NodeCancelled();
    if (stopped === 'timeout') throw new NodeFailure('timeout', `timed out after ${formatDuration(node.timeoutMs)}`);
    if (code !== 0) throw new NodeFailure('exit_code', killedBy ? `killed by ${killedBy}` : `exited with code ${code}`);
    return { output: stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout };
  } catch (error) {
    if (error instanceof NodeFailure || error instanceof NodeCancelled) throw error;
    throw new NodeFailure('spawn_error', `bash could not be started: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
};
