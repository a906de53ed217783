import { withheldEnvironment } from '../../../agents/index.js';
import { processVariables, withTraceparent } from './process-env.js';
import { StringDecoder } from 'node:string_decoder';
import { checkedWhole, formatDuration, renderBash } from '../../../workflows/index.js';
import { watchIdle, spawnGroup } from '../../../processes/index.js';
import { OUTPUT_LIMIT_BYTES, outputTooLarge } from './output-limit.js';
import { prepareBashScript } from './bash-script.js';
import { bashSandboxDecision, confineBash, type ConfinedBash } from './bash-sandbox.js';
import { NodeCancelled, NodeFailure, type NodeRunner, type SandboxDeps } from './types.js';

/**
 * `bash` nodes: `bash -c` in the run's cwd, in their own process group. No value is part of the
 * script's text: user-controlled values arrive as environment variables, and `$id.output` is
 * rewritten to a quoted expansion of the variable holding the output (bash-script.ts). With an
 * `idle_timeout`, a script that prints nothing (stdout or stderr) for that long is stopped: `stalled`.
 * A node with a sandbox (bash-sandbox.ts) runs its script inside it, in the same process group.
 */
export const bashRunner =
  (sandbox: SandboxDeps): NodeRunner =>
  async (context) => {
    const { run, node, outputs, variables, env, envAllow, onEnvGiven, signal, onOutput, onProcess, traceparent } = context;
    if (node.action.kind !== 'bash') throw new Error(`bashRunner got a ${node.action.kind} node`);
    // The last check of the script (renderBash) is made whole: with the bash parser's reading too.
    const source = node.action.bash;
    const script = await prepareBashScript(await checkedWhole(() => renderBash(source, outputs)));
    if (signal.aborted) {
      await script.cleanup();
      throw new NodeCancelled();
    }
    const given = { ...env, ...processVariables(variables), ...script.env };
    // A script is the user's own: it keeps the server's environment unless the node withholds it (docs/contract.md, "Least-privilege environment").
    let processEnv: NodeJS.ProcessEnv = { ...process.env, ...given };
    if (node.envInherit === false) {
      const withheld = withheldEnvironment({ server: process.env, allow: envAllow, given });
      processEnv = withheld.env;
      onEnvGiven(withheld.given);
    }
    // svc's own, after the environment is withheld or not: never one of the names given or allowed.
    processEnv = withTraceparent(processEnv, traceparent);
    let confined: ConfinedBash | undefined;
    if (bashSandboxDecision(node, run, sandbox)?.sandbox === 'on') {
      try {
        confined = await confineBash(context, sandbox, script.args, processEnv, signal);
      } catch (error) {
        await script.cleanup();
        throw error;
      }
    }
    let proc: ReturnType<typeof spawnGroup>;
    try {
      proc = confined
        ? spawnGroup('bash', ['-c', confined.command], { cwd: run.cwd, env: confined.env })
        : spawnGroup('bash', script.args, { cwd: run.cwd, env: processEnv });
      if (proc.child.pid !== undefined) onProcess(proc.child.pid, () => proc.terminate());
    } catch (error) {
      // Synchronous spawn failures (E2BIG from an oversized environment value) fail the node too.
      await script.cleanup();
      await confined?.finish();
      throw new NodeFailure('spawn_error', `bash could not be started: ${(error as Error).message}`);
    }
    let stopped: 'timeout' | 'stalled' | 'cancelled' | 'output_too_large' | undefined;
    const idle = watchIdle(node.idleTimeoutMs, () => {
      stopped ??= 'stalled';
      void proc.terminate();
    });
    // Counted in bytes as they arrive: past the limit the output is dropped at once and bash is
    // stopped, so a node printing without end never holds more than the limit here.
    let stdout = '';
    let stdoutBytes = 0;
    const decoder = new StringDecoder('utf8');
    const takeStdout = (text: string) => {
      if (stdoutBytes <= OUTPUT_LIMIT_BYTES) stdout += text;
      else if (stopped === undefined) {
        stopped = 'output_too_large';
        stdout = '';
        void proc.terminate();
      }
      // Still logged: `<node>.log` keeps what the node printed, within its own limit.
      if (text) onOutput('stdout', text);
    };
    proc.child.stdout?.on('data', (chunk: Buffer) => {
      idle.touch();
      stdoutBytes += chunk.length;
      takeStdout(decoder.write(chunk));
    });
    const stderrDecoder = new StringDecoder('utf8');
    proc.child.stderr?.on('data', (chunk: Buffer) => {
      idle.touch();
      confined?.stderr(chunk);
      const text = stderrDecoder.write(chunk);
      if (text) onOutput('stderr', text);
    });

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
      takeStdout(decoder.end());
      const stderrTail = stderrDecoder.end();
      if (stderrTail) onOutput('stderr', stderrTail);
      const output = stdout.endsWith('\n') ? stdout.slice(0, -1) : stdout;
      // What it printed goes with a failure too (its `$id.output` if the failure is tolerated); not
      // with output_too_large, whose output was dropped at the limit.
      const failure = (failureCode: string, message: string) => new NodeFailure(failureCode, message, null, null, output);
      if (stopped === 'cancelled') throw new NodeCancelled();
      if (stopped === 'timeout') throw failure('timeout', `timed out after ${formatDuration(node.timeoutMs)}`);
      // Whatever bash exited with once stopped (a trap may exit 0), a stalled node never succeeds.
      if (stopped === 'stalled') throw failure('stalled', `no output for ${formatDuration(node.idleTimeoutMs!)} (idle_timeout); bash was stopped`);
      if (stopped === 'output_too_large') throw outputTooLarge(node.id, 'printed');
      if (code !== 0) throw failure('exit_code', killedBy ? `killed by ${killedBy}` : `exited with code ${code}`);
      return { output };
    } catch (error) {
      if (error instanceof NodeFailure || error instanceof NodeCancelled) throw error;
      throw new NodeFailure('spawn_error', `bash could not be started: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      idle.stop();
      signal.removeEventListener('abort', onAbort);
      await script.cleanup();
      await confined?.finish();
    }
  };
