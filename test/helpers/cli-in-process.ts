import type { PassThrough } from 'node:stream';
import { runSvc } from '../../src/cli/main.js';
import { testIO } from '../../src/cli/test-io.js';
import type { CliResult } from './cli.js';

/**
 * Runs `svc <args>` inside the test process (no subprocess, sources as they are) with an
 * in-memory terminal: what a command prints and its exit code, as `runCli` reports them. `cwd`:
 * the working directory the command sees (the process's, for the command's duration: one command
 * with a cwd at a time); `input`: its stdin.
 */
export async function runSvcInProcess(
  args: string[],
  env: Record<string, string>,
  options: { tty?: boolean; color?: boolean; cwd?: string; input?: string | Buffer } = {},
): Promise<CliResult> {
  const io = testIO({ env: { PATH: process.env.PATH, ...env }, tty: options.tty, color: options.color });
  // What runCli gives a command: its input, else an empty stdin that has ended.
  (io.stdin as PassThrough).end(options.input ?? '');
  const previous = process.cwd();
  if (options.cwd !== undefined) process.chdir(options.cwd);
  try {
    const code = await runSvc(args, io);
    return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
  } finally {
    if (options.cwd !== undefined) process.chdir(previous);
  }
}
