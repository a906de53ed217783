import { watchIdle, spawnGroup } from '../processes/index.js';
import { formatDuration } from '../shared/duration.js';
import { AGENT_LINE_LIMIT_BYTES, lineSplitter } from './line-splitter.js';
import { AgentError, type AgentRequest } from './types.js';

export interface JsonlProcessSpec {
  agent: string;
  bin: string;
  args: string[];
  request: AgentRequest;
  /** Called for each parsed stdout line; non-JSON lines are ignored (agents print banners). */
  onLine(value: Record<string, unknown>): void;
}

export interface JsonlProcessOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderrTail: string;
}

const STDERR_TAIL = 4000;

const LINE_LIMIT_TEXT = `${AGENT_LINE_LIMIT_BYTES / (1024 * 1024)} MiB`;

/**
 * Runs an agent that speaks JSON lines on stdout, prompt on stdin, in its own process group.
 * Enforces the first-event timeout (logging `agent.first_event_timeout`), the call timeout, the
 * idle timeout (`stalled`), cancellation and the length of a line (`output_too_large`: memory stays bounded whatever the
 * agent prints), each by killing the whole group.
 */
export async function runJsonlProcess(spec: JsonlProcessSpec): Promise<JsonlProcessOutcome> {
  const { request } = spec;
  if (request.signal.aborted) throw new AgentError('agent_cancelled', `${spec.agent} call cancelled before it started`);
  const proc = spawnGroup(spec.bin, spec.args, { cwd: request.cwd, env: request.env, stdin: request.prompt });
  if (proc.child.pid !== undefined) request.onProcess?.(proc.child.pid, () => proc.terminate());
  let failure: AgentError | undefined;
  const stop = (error: AgentError) => {
    failure ??= error;
    void proc.terminate();
  };
  // Any output counts as a sign of life, a partial line or stderr too: only a silent agent stalls.
  const idle = watchIdle(request.idleTimeoutMs, () =>
    stop(new AgentError('stalled', `${spec.agent} produced no output for ${formatDuration(request.idleTimeoutMs!)} (idle_timeout); it was stopped`)),
  );
  let stderrTail = '';
  proc.child.stderr?.on('data', (chunk: Buffer) => {
    idle.touch();
    stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL);
  });
  let sawLine = false;
  const firstEventTimer = setTimeout(() => {
    if (sawLine) return;
    request.logger.warn('agent.first_event_timeout', {
      agent: spec.agent,
      timeoutMs: request.firstEventTimeoutMs,
      // Key names only: values can be credentials.
      parentEnvKeys: Object.keys(process.env).sort(),
      model: request.model,
      uid: process.getuid?.() ?? null,
      stdoutIsTTY: Boolean(process.stdout.isTTY),
      stdinIsTTY: Boolean(process.stdin.isTTY),
    });
    stop(new AgentError('agent_first_event_timeout', `${spec.agent} produced no output within ${request.firstEventTimeoutMs} ms`));
  }, request.firstEventTimeoutMs);
  const callTimer =
    request.timeoutMs === undefined
      ? undefined
      : setTimeout(() => stop(new AgentError('agent_timeout', `${spec.agent} did not finish within ${request.timeoutMs} ms`)), request.timeoutMs);
  const onAbort = () => stop(new AgentError('agent_cancelled', `${spec.agent} call cancelled`));
  request.signal.addEventListener('abort', onAbort, { once: true });

  const onLine = (line: string) => {
    sawLine = true;
    clearTimeout(firstEventTimer);
    if (failure) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (value && typeof value === 'object') {
      try {
        spec.onLine(value as Record<string, unknown>);
      } catch (error) {
        stop(new AgentError('agent_protocol_error', `${spec.agent}: ${(error as Error).message}`));
      }
    }
  };
  const lines = lineSplitter(AGENT_LINE_LIMIT_BYTES, onLine, () =>
    stop(
      new AgentError(
        'output_too_large',
        `${spec.agent} printed a line of more than ${LINE_LIMIT_TEXT} on stdout, the most svc reads of one line of an agent's output; the agent was stopped`,
      ),
    ),
  );
  proc.child.stdout!.on('data', (chunk: Buffer) => {
    idle.touch();
    lines.push(chunk);
  });
  proc.child.stdout!.on('end', () => lines.end());

  try {
    const { code, signal } = await proc.done;
    if (failure) throw failure;
    return { code, signal, stderrTail: stderrTail.trim() };
  } catch (error) {
    if (error instanceof AgentError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AgentError('agent_not_found', `${spec.agent} executable '${spec.bin}' was not found (set SVC_${spec.agent.toUpperCase()}_BIN or install it)`);
    }
    throw new AgentError('agent_failed', `${spec.agent} could not be started: ${(error as Error).message}`);
  } finally {
    clearTimeout(firstEventTimer);
    idle.stop();
    if (callTimer) clearTimeout(callTimer);
    request.signal.removeEventListener('abort', onAbort);
  }
}
