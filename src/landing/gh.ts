/**
 * The GitHub CLI as svc runs it (docs/decisions.md, "Landing a run: merge, push, pull request";
 * "Pull request reactions"): never able to ask anything (no stdin, prompts off), stopped after the
 * git time limit, its output collected up to a bound. svc keeps no GitHub token of its own: gh's
 * login is the user's. Not found, or not logged in, is 409 `gh_unavailable` saying how to fix it.
 */

import { spawnGroup } from '../processes/index.js';
import { DomainError } from '../shared/errors.js';
import { withoutCredentials } from './merge.js';
import type { WorktreeGit } from '../workspaces/index.js';

export const HOW_TO_INSTALL_GH = 'Install the GitHub CLI (https://cli.github.com) and run `gh auth login`, or point SVC_GH_BIN at it.';

/** gh's exit code when it has no credentials (`gh help exit-codes`). */
const GH_AUTH_EXIT = 4;

/** More is cut: a failed job's log can be many megabytes, and svc keeps an excerpt of it. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface GhResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** Without any `user:password@` of a URL. */
  stderr: string;
}

/** Runs `ghBin args` in `cwd`; rejects only when gh cannot start or is not logged in (409 `gh_unavailable`), what it needs `why`. */
export async function runGh(
  ghBin: string,
  args: string[],
  options: { cwd: string; git: WorktreeGit; why: string; /** Stops gh (its process group) early: a server closing waits for no call. */ signal?: AbortSignal },
): Promise<GhResult> {
  const env = { ...options.git.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1', GIT_TERMINAL_PROMPT: '0', GH_PAGER: 'cat' };
  let gh: ReturnType<typeof spawnGroup>;
  try {
    gh = spawnGroup(ghBin, args, { cwd: options.cwd, env });
  } catch (error) {
    throw new DomainError('gh_unavailable', `The GitHub CLI '${ghBin}' could not be started (${(error as Error).message}). ${HOW_TO_INSTALL_GH}`);
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let size = 0;
  const collect = (into: Buffer[]) => (chunk: Buffer) => {
    if (size >= MAX_OUTPUT_BYTES) return;
    size += chunk.length;
    into.push(chunk);
  };
  gh.child.stdout?.on('data', collect(out));
  gh.child.stderr?.on('data', collect(err));
  const timer = setTimeout(() => void gh.terminate(2000), options.git.timeoutMs ?? 5 * 60_000);
  const stop = () => void gh.terminate(2000);
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  let result: { code: number | null; signal: NodeJS.Signals | null };
  try {
    result = await gh.done;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    const why = missing ? `'${ghBin}' was not found` : `'${ghBin}' could not be started (${(error as Error).message})`;
    throw new DomainError('gh_unavailable', `The GitHub CLI is needed to ${options.why}: ${why}. ${HOW_TO_INSTALL_GH}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
  const stderr = withoutCredentials(Buffer.concat(err).toString('utf8').trim());
  if (result.code === GH_AUTH_EXIT || /gh auth login/.test(stderr)) {
    throw new DomainError('gh_unavailable', `The GitHub CLI is not logged in: run \`gh auth login\`, then try again. (${stderr})`);
  }
  return { ...result, stdout: Buffer.concat(out).toString('utf8'), stderr };
}

/** How a gh call ended, in words, for an error message: its exit or signal, and what it said. */
export function ghFailure(command: string, result: GhResult): string {
  const status = result.signal ? `was stopped (${result.signal})` : `exited ${result.code}`;
  return `${command} ${status}: ${result.stderr || withoutCredentials(result.stdout.trim()).slice(0, 2000) || 'no message'}`;
}
