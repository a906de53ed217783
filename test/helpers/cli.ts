import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SVC_BIN = fileURLToPath(new URL('../../bin/svc.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a spawned svc: the runner's, without what would point it elsewhere. */
export function svcEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, NODE_ENV: undefined, SVC_URL: undefined, PORT: undefined, ...extra })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/**
 * Runs the built CLI (`bin/svc.mjs`, compiled by `npm test`'s pretest build) as a user would:
 * a real subprocess, no TTY, with the given environment on top of a clean one.
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string | Buffer; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env: svcEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command may end before it reads its input (a usage error): EPIPE then is not the test's error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
