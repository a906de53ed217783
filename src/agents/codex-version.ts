/**
 * Which Codex is installed, and whether svc gives it a permission profile (docs/decisions.md,
 * "Agents in a sandbox"). Profiles (`default_permissions`, `permissions.<name>` extending
 * `:workspace`) are what deny a sandboxed command's reads; svc measured them on 0.169.0 and gives
 * them to that version and later ones. An older Codex gets `--sandbox` instead — writes confined,
 * reads not — and the node says so (`sandboxWarning`). A version `--version` does not tell is taken
 * as current: the profile is given, and a Codex that refuses it fails the node loudly.
 */

import { execFile } from 'node:child_process';

/** The oldest Codex whose permission profiles svc has seen confine reads (measured). */
export const CODEX_PROFILES_SINCE = '0.169.0';

const versions = new Map<string, Promise<string | undefined>>();

/** `codex --version`'s number (`codex-cli 0.169.0` → `0.169.0`), once per executable; undefined when it does not say. */
export function codexVersion(bin: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  let version = versions.get(bin);
  if (!version) {
    version = new Promise((resolve) => {
      execFile(bin, ['--version'], { env, timeout: 15_000 }, (error, stdout) => resolve(error ? undefined : /(\d+)\.(\d+)\.(\d+)/.exec(String(stdout))?.[0]));
    });
    versions.set(bin, version);
  }
  return version;
}

const parts = (version: string) => version.split('.').map(Number);

/** Whether `version` is at least `since` (numbers, part by part). */
export function atLeast(version: string, since: string): boolean {
  const [a, b] = [parts(version), parts(since)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/** Why this Codex gets `--sandbox` instead of a profile; undefined when it gets the profile. */
export async function codexProfileWarning(bin: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const version = await codexVersion(bin, env);
  if (version === undefined || atLeast(version, CODEX_PROFILES_SINCE)) return undefined;
  return `codex ${version} predates the permission profiles svc uses (${CODEX_PROFILES_SINCE}); it ran with --sandbox, which confines writes but not reads: update codex`;
}
