/**
 * The real `git` binary, run so that it can never wait for a person: no stdin but what it is
 * given, no controlling terminal (its own session), credential and SSH prompts turned off, and a
 * time limit after which its whole process group is killed. A clone that needs credentials fails
 * at once instead of hanging the server (docs/decisions.md, "Workspaces").
 */

import { spawnGroup } from '../processes/index.js';

export const DEFAULT_GIT_TIMEOUT_MS = 5 * 60_000;

export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly timedOut = false,
    /** git's exit code and what it printed on stdout, when it ran and failed: some commands answer there (`merge-tree` its conflicts). */
    readonly exit: { code: number | null; stdout: string } | undefined = undefined,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  cwd: string;
  timeoutMs?: number;
  /** The environment git runs with; prompts are turned off on top of it. */
  env: NodeJS.ProcessEnv;
  /** What git reads on stdin (`update-ref --stdin`); none otherwise. */
  input?: string;
}

/** Variables that make git and ssh fail instead of asking. */
const NO_PROMPTS = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  SSH_ASKPASS: 'true',
  GCM_INTERACTIVE: 'never',
  GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=30',
} as const;

/**
 * Variables that would point git at another repository than the one in `cwd` (svc started from
 * a git hook has GIT_DIR set): never passed on.
 */
const REPOSITORY_OVERRIDES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_PREFIX',
] as const;

/** Runs `git <args>` and resolves with its stdout; rejects with a GitError carrying git's own message. */
export async function runGit(args: readonly string[], options: GitOptions): Promise<string> {
  return (await gitOutput(args, options, Number.POSITIVE_INFINITY)).stdout.toString('utf8');
}

/**
 * `runGit` keeping at most `maxBytes` of stdout: past it git is stopped and `truncated` is true, so
 * a diff of any size costs bounded memory.
 */
export function runGitCapped(args: readonly string[], options: GitOptions, maxBytes: number): Promise<{ stdout: Buffer; truncated: boolean }> {
  return gitOutput(args, options, maxBytes);
}

async function gitOutput(args: readonly string[], options: GitOptions, maxBytes: number): Promise<{ stdout: Buffer; truncated: boolean }> {
  const env: NodeJS.ProcessEnv = { ...options.env, ...NO_PROMPTS, LC_ALL: 'C' };
  for (const name of REPOSITORY_OVERRIDES) delete env[name];
  const git = spawnGroup('git', ['-c', 'credential.interactive=never', ...args], {
    cwd: options.cwd,
    env,
    ...(options.input === undefined ? {} : { stdin: options.input }),
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  git.child.stdout?.on('data', (chunk: Buffer) => {
    if (truncated) return;
    if (kept + chunk.length > maxBytes) {
      out.push(chunk.subarray(0, maxBytes - kept));
      truncated = true;
      void git.terminate(0);
      return;
    }
    kept += chunk.length;
    out.push(chunk);
  });
  git.child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  let timedOut = false;
  const timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const timer = setTimeout(() => {
    timedOut = true;
    void git.terminate(2000);
  }, timeoutMs);
  try {
    const { code, signal } = await git.done;
    const stderr = Buffer.concat(err).toString('utf8').trim();
    if (timedOut) throw new GitError(`git ${args[0]} did not finish within ${Math.round(timeoutMs / 1000)} s`, stderr, true);
    // Stopped by us for having said enough: what it said is the answer.
    if (truncated) return { stdout: Buffer.concat(out), truncated };
    if (code !== 0) {
      throw new GitError(stderr || `git ${args[0]} failed (${signal ?? `exit ${code}`})`, stderr, false, { code, stdout: Buffer.concat(out).toString('utf8') });
    }
    return { stdout: Buffer.concat(out), truncated };
  } catch (error) {
    if (error instanceof GitError) throw error;
    throw new GitError(`git could not be started: ${(error as Error).message}`, '');
  } finally {
    clearTimeout(timer);
  }
}

/** The branch HEAD names in a repository (`main`, `master`, …); a detached HEAD answers its commit. */
export async function currentBranch(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const name = (await runGit(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: dir, env }).catch(() => '')).trim();
  if (name && name !== 'HEAD') return name;
  // An empty repository has no commit yet, but its HEAD still names the unborn branch.
  const unborn = (await runGit(['symbolic-ref', '--short', 'HEAD'], { cwd: dir, env }).catch(() => '')).trim();
  return unborn || 'HEAD';
}

/** The top directory of the git work tree `dir` is in, or undefined when it is in none. */
export async function gitTopLevel(dir: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const top = (await runGit(['rev-parse', '--show-toplevel'], { cwd: dir, env })).trim();
    return top || undefined;
  } catch {
    return undefined;
  }
}
