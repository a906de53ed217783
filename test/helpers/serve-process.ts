import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { SVC_BIN, svcEnv, type CliResult } from './cli.js';

export { svcEnv };

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (however it ended). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();

/**
 * Spawns the built `svc serve` as a real subprocess (PORT=0 unless given) and resolves once it
 * prints `svc <v> listening on <url>`; rejects with its stderr if it exits first.
 */
export function spawnServe(options: {
  home: string;
  env?: Record<string, string | undefined>;
  args?: string[];
  nodeArgs?: string[];
  cwd?: string;
  timeoutMs?: number;
}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), SVC_BIN, 'serve', ...(options.args ?? [])], {
    env: svcEnv({ PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_VALIDATE_RESPONSES: '1', ...options.env, SVC_HOME: options.home }),
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc serve did not start in time.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    const onData = () => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        child,
        url: match[1]!,
        pid: child.pid!,
        stdout: () => stdout,
        stderr: () => stderr,
        exited,
        stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`svc serve exited (${code ?? signal}) before listening.\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

/** For afterEach: SIGKILLs every svc serve still running and waits for them to go. */
export async function killAllServes(): Promise<void> {
  const waits = [...live].map(
    (child) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}

/**
 * A CLI command left running while the test acts (one following a run or waiting for a reply): its
 * output so far, and its end. `killAllServes` ends it too.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): { pid: number; stdout(): string; stderr(): string; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { env: svcEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => {
      live.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
  return { pid: child.pid!, stdout: () => stdout, stderr: () => stderr, done };
}

/** A loopback port that was free a moment ago and has nothing listening on it now. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
