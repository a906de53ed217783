import { spawn, type ChildProcess } from 'node:child_process';
import { strayProcesses } from './strays.js';

/** Grace between SIGTERM and SIGKILL when stopping a node's processes (docs/contract.md, "Run states"). */
export const KILL_GRACE_MS = 5000;

export interface GroupProcess {
  child: ChildProcess;
  /** Resolves when the leader exits and its output is drained (or abandoned to stray holders). */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM to the whole group and to the groups its tree left it for, SIGKILL after the grace period if anything is left. */
  terminate(graceMs?: number): Promise<void>;
}

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // the group is gone
  }
}

function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0 as unknown as NodeJS.Signals);
}

/**
 * Spawns a command as the leader of its own process group, so cancelling kills what it started
 * too (`sleep 100 &` included) — a plain `child.kill()` reaches only the leader — and what its tree
 * started in groups of their own (strays.ts).
 */
export function spawnGroup(
  command: string,
  args: string[],
  // `stdin: 'open'`: a pipe left open for the caller, for a process spoken to while it runs (an ACP agent).
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | { open: true } },
): GroupProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    // bash treats a socket on stdin as a remote shell and reads ~/.bashrc: give it none unless needed.
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined && child.stdin) {
    child.stdin.on('error', () => {}); // the process may exit before reading its input
    if (typeof options.stdin === 'string') child.stdin.end(options.stdin);
  }
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      // A background grandchild can hold stdout open forever; wait briefly for the pipes, then move on.
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ code, signal });
      };
      const timer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, 500);
      child.once('close', finish);
    });
  });
  done.catch(() => {});

  const terminate = async (graceMs = KILL_GRACE_MS) => {
    const pid = child.pid;
    if (pid === undefined || !groupAlive(pid)) return;
    // Read before any signal: what left the group is found only through the processes that started it.
    const strays = strayProcesses(pid);
    signalGroup(pid, 'SIGTERM');
    strays.signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    // Unref'd: zombies (reaped late, or never, by a container's init) count as alive to kill(2),
    // and waiting on them must not hold a finished CLI process open.
    while (Date.now() < deadline && (groupAlive(pid) || strays.alive())) await new Promise((r) => setTimeout(r, 50).unref());
    // What left the group during the grace is read again while its parents still run.
    const late = groupAlive(pid) ? strayProcesses(pid) : undefined;
    if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
    strays.signal('SIGKILL');
    late?.signal('SIGKILL');
  };
  // What the leader left running in its group (`server &`) ends with it: nothing a node starts
  // may outlive the node, where cancel and recovery could no longer reach it.
  const settled = done.then(
    (result) => {
      void terminate();
      return result;
    },
    (error: unknown) => {
      void terminate();
      throw error;
    },
  );
  settled.catch(() => {});
  return { child, done: settled, terminate };
}
