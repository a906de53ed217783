/**
 * What the real agent CLIs (pinned devDependencies: `@anthropic-ai/claude-code`, `@openai/codex`)
 * need to run offline in a test (docs/decisions.md, "Agent tests"): a fresh HOME of their own, codex's
 * CODEX_HOME with a config.toml that turns off everything it would fetch, Claude Code's switches
 * for the same, and proxy variables pointing at a trap, so that a call to the outside world fails
 * at once and is seen. The model API itself is a local stand-in (model-standins.ts), given to svc
 * as the assistant's endpoint, as a user would.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect } from 'vitest';
import { onCleanup } from '../helpers/runs.js';
import type { NetworkTrap } from './model-standins.js';

export const REAL_CLAUDE = fileURLToPath(new URL('../../node_modules/.bin/claude', import.meta.url));
export const REAL_CODEX = fileURLToPath(new URL('../../node_modules/.bin/codex', import.meta.url));

/** Whether `path` is `dir` or lies below it (path components, as codex compares them). */
export const isUnder = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * A fresh HOME for one test, outside the temporary directory, as a real user's is: codex 0.169
 * refuses to create its helper aliases (`codex-linux-sandbox` on PATH) under a CODEX_HOME inside
 * the temporary directory, and with a system bubblewrap older than 0.9 (no `--argv0`: Debian 12's
 * 0.8.0) its sandbox then fails every command (docs/decisions.md, "Codex's sandbox helper"). Under
 * `node_modules/.cache`, else `~/.cache`; the caller removes it.
 */
export async function agentHome(prefix = 'svc-real-home-'): Promise<string> {
  const roots = [fileURLToPath(new URL('../../node_modules/.cache/svc-agent-homes', import.meta.url)), join(homedir(), '.cache', 'svc-agent-homes')];
  const root = roots.find((dir) => !isUnder(dir, tmpdir()));
  if (!root) throw new Error(`no place for an agent HOME outside the temporary directory ${tmpdir()}: tried ${roots.join(', ')}`);
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, prefix));
}

/**
 * Measured with codex 0.169.0 behind a trap: without these it reaches github.com, api.github.com
 * (update check, curated plugins), chatgpt.com (plugins) and ab.chatgpt.com (analytics).
 */
const CODEX_OFFLINE_CONFIG = `check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
`;

/** The environment the agents get (through svc's, which they inherit) for one test, in `home`. */
export async function offlineAgentEnv(home: string, trap: NetworkTrap): Promise<Record<string, string>> {
  const codexHome = join(home, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(join(codexHome, 'config.toml'), CODEX_OFFLINE_CONFIG);
  const proxy = { HTTPS_PROXY: trap.url, HTTP_PROXY: trap.url, ALL_PROXY: trap.url, NO_PROXY: '127.0.0.1,localhost' };
  return {
    HOME: home,
    CODEX_HOME: codexHome,
    // Claude Code: without these it calls api.anthropic.com (telemetry, updates) whatever its base URL.
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...proxy,
    ...Object.fromEntries(Object.entries(proxy).map(([key, value]) => [key.toLowerCase(), value])),
  };
}

/**
 * Saves `process.env` as it is now; the function returned puts it back (variables added since are
 * removed). svc's agents inherit the server's environment, so each real-agent test sets its own.
 */
export function saveProcessEnv(): () => void {
  const saved = { ...process.env };
  return () => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  };
}

/**
 * Each test of a real-agent file in a fresh HOME (agentHome) with the agents' offline switches, set
 * in `process.env` (svc's agents inherit the server's) and put back after it; the stand-ins'
 * recorded requests emptied before it; and after it, no request that would have left the machine.
 */
export function offlineAgentPerTest(trap: () => NetworkTrap, standIns: () => Array<{ requests: unknown[] }>): void {
  const restoreEnv: Array<() => void> = [];
  beforeEach(async () => {
    restoreEnv.push(saveProcessEnv());
    const home = await agentHome();
    onCleanup(() => rm(home, { recursive: true, force: true }));
    Object.assign(process.env, await offlineAgentEnv(home, trap()));
    for (const standIn of standIns()) standIn.requests.length = 0;
  });
  afterEach(() => {
    restoreEnv.pop()?.();
    expect(trap().attempts, 'requests that would have left the machine').toEqual([]);
  });
}
