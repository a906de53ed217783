import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SVC_BIN, svcEnv } from './cli.js';
import { waitFor } from './runs.js';

const live = new Set<() => void>();

/** For afterEach: SIGKILLs every svc still on a pty and its `script` (a test that failed leaves them). */
export function killAllPtys(): void {
  for (const kill of live) kill();
  live.clear();
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export interface PtyCli {
  /** What the terminal showed so far: stdout and stderr together, escapes included. */
  output(): string;
  /** The svc process itself (not `script`), to signal it. */
  pid(): Promise<number>;
  /** Types on the terminal (`input: true` only): `\r` is Enter, `\u0003` Ctrl+C. */
  type(keys: string): void;
  /** Resolves when `script` ended, which it does when svc does: svc's exit code (`script -e`). */
  exited: Promise<number | null>;
  child: ChildProcess;
}

/**
 * The built CLI on a real pseudo-terminal (`script`), sized by `stty` first: `columns: 0` is the
 * terminal of `script`, some CI runners and containers, that reports no width. `exec` makes svc
 * the direct child of `script`, so `pid()` finds it to send it a signal.
 */
export function spawnOnPty(args: string[], options: { env: Record<string, string>; cwd?: string; columns?: number; rows?: number; input?: boolean }): PtyCli {
  const size = options.columns === undefined ? '' : `stty cols ${options.columns} rows ${options.rows ?? options.columns}; `;
  const command = `${size}exec ${[process.execPath, SVC_BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    // A person's terminal: not CI (CI=true turns spinners and prompts off, as on a runner), whatever runs the tests.
    env: svcEnv({ CI: undefined, ...options.env }),
    cwd: options.cwd,
    stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const svcPid = () => {
    try {
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      // Before the exec, the child is the shell that runs stty: only svc itself counts.
      return children.find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(SVC_BIN));
    } catch {
      return undefined;
    }
  };
  // An svc that hangs outlives its `script`: SIGKILL it first.
  const kill = () => {
    const pid = svcPid();
    if (pid !== undefined) process.kill(pid, 'SIGKILL');
    child.kill('SIGKILL');
  };
  live.add(kill);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      live.delete(kill);
      resolve(code);
    }),
  );
  // `script` passes what it reads on its stdin to the terminal, as keys typed.
  const type = (keys: string) => {
    if (!child.stdin) throw new Error('spawnOnPty: pass `input: true` to type on the terminal');
    child.stdin.write(keys);
  };
  return { output: () => out, pid: () => waitFor(svcPid, 10_000), type, exited, child };
}
