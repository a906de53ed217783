import { runSvc } from '../../src/cli/main.js';
import { testIO } from '../../src/cli/test-io.js';
import type { CliResult } from './cli.js';

/**
 * Runs `svc <args>` inside the test process (no subprocess, sources as they are) with an
 * in-memory terminal: what a command prints and its exit code, as `runCli` reports them.
 */
export async function runSvcInProcess(args: string[], env: Record<string, string>, options: { tty?: boolean; color?: boolean } = {}): Promise<CliResult> {
  const io = testIO({ env: { PATH: process.env.PATH, ...env }, tty: options.tty, color: options.color });
  const code = await runSvc(args, io);
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}
