import { Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { spawnGroup, watchIdle, type GroupProcess } from '../processes/index.js';
import { formatDuration } from '../shared/duration.js';
import { AGENT_LINE_LIMIT_BYTES } from './line-splitter.js';
import { AgentError, type AgentRequest } from './types.js';

const STDERR_TAIL = 4000;

export const notFound = (agent: string, bin: string) =>
  new AgentError('agent_not_found', `${agent}: its command '${bin}' was not found (install it, or give the assistant's command with its full path)`);

/** An ACP agent's process, the SDK's stream over its stdio, and what ends it early. */
export interface AcpProcess {
  proc: GroupProcess;
  stream: acp.Stream;
  /** Rejects with the reason svc stopped the agent (a timeout, cancel) or it ended on its own. */
  ended: Promise<never>;
  /** Stops the agent for `error` (its group is killed; `ended` rejects with it). */
  stop(error: AgentError): void;
  stderrTail(): string;
  /** No more watching: the turn is over, whatever the outcome. */
  dispose(): Promise<void>;
}

/**
 * Starts an ACP agent in its own process group with its stdio as the SDK's newline-delimited JSON
 * stream (stdout is pure protocol), under the same watch as every agent (run-jsonl-process.ts):
 * nothing on stdout within the first-event timeout, the call's timeout, no output at all for the
 * idle timeout (`stalled`), a message longer than svc reads (`output_too_large`), and the process
 * ending before its turn did. Cancel is the caller's: ACP asks for `session/cancel` first.
 */
export function startAcpProcess(agent: string, bin: string, args: string[], request: AgentRequest, env: NodeJS.ProcessEnv): AcpProcess {
  const proc = spawnGroup(bin, args, { cwd: request.cwd, env, stdin: { open: true } });
  if (proc.child.pid !== undefined) request.onProcess?.(proc.child.pid, () => proc.terminate());
  let stopWith!: (error: AgentError) => void;
  const ended = new Promise<never>((_, reject) => (stopWith = reject));
  ended.catch(() => {});
  let failure: AgentError | undefined;
  const stop = (error: AgentError) => {
    if (failure) return;
    failure = error;
    stopWith(error);
    void proc.terminate();
  };
  const idle = watchIdle(request.idleTimeoutMs, () =>
    stop(new AgentError('stalled', `${agent} produced no output for ${formatDuration(request.idleTimeoutMs!)} (idle_timeout); it was stopped`)),
  );
  let stderr = '';
  proc.child.stderr!.on('data', (chunk: Buffer) => {
    idle.touch();
    stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
  });
  let heard = false;
  const firstEvent = setTimeout(() => {
    if (!heard) stop(new AgentError('agent_first_event_timeout', `${agent} produced no output within ${request.firstEventTimeoutMs} ms`));
  }, request.firstEventTimeoutMs);
  const callTimer =
    request.timeoutMs === undefined
      ? undefined
      : setTimeout(() => stop(new AgentError('agent_timeout', `${agent} did not finish within ${request.timeoutMs} ms`)), request.timeoutMs);
  // The SDK reads the agent's stdout as a web stream; every chunk is also a sign of life.
  const input = stdoutStream(proc, () => {
    heard = true;
    idle.touch();
  });
  const output = Writable.toWeb(proc.child.stdin!) as WritableStream<Uint8Array>;
  const stream = acp.ndJsonStream(output, input, { maxMessageBytes: AGENT_LINE_LIMIT_BYTES });
  void proc.done.then(
    ({ code, signal }) => {
      const why = stderr.trim() || `exit ${code ?? signal}`;
      stop(new AgentError('agent_failed', `${agent} ended before its turn did: ${why}`));
    },
    (error: NodeJS.ErrnoException) =>
      stop(error.code === 'ENOENT' ? notFound(agent, bin) : new AgentError('agent_failed', `${agent} could not be started: ${error.message}`)),
  );
  return {
    proc,
    stream,
    ended,
    stop,
    stderrTail: () => stderr.trim(),
    async dispose() {
      clearTimeout(firstEvent);
      if (callTimer) clearTimeout(callTimer);
      idle.stop();
      // One turn per process: whatever it left running goes with it. The leader's end is what is
      // awaited (its handle keeps a CLI's loop open; terminate's own timers do not).
      failure ??= new AgentError('agent_failed', `${agent}'s turn is over`);
      void proc.terminate();
      await proc.done.catch(() => {});
    },
  };
}

/**
 * A process's stdout as the web stream the SDK reads, `onChunk` told of each chunk. The SDK cancels
 * it when the connection closes, which may come before the pipe ends: what follows is dropped.
 */
export function stdoutStream(proc: GroupProcess, onChunk: () => void = () => {}): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      proc.child.stdout!.on('data', (chunk: Buffer) => {
        onChunk();
        if (open) controller.enqueue(new Uint8Array(chunk));
      });
      proc.child.stdout!.on('end', () => {
        if (!open) return;
        open = false;
        controller.close();
      });
    },
    cancel() {
      open = false;
    },
  });
}
