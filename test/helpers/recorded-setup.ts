// A `.svc/worktree.yaml` whose setup stands in for `npm ci` and records each invocation, with a cache
// keyed by the lockfile and a pool (docs/decisions.md, "Setup cache and pool"): what the pool's tests
// and the dashboard's share.
import { existsSync, readFileSync } from 'node:fs';
import { api, type Json } from './runs.js';
import type { TestServer } from './server.js';

/**
 * The file's text: the setup appends its folder to `log`, then "installs" `node_modules/dep` whose
 * VERSION is `package-lock.json`'s; `cache:` keeps `node_modules` keyed by the lockfile; `pool:` and
 * `copy:` as given.
 */
export const recordingSetup = (log: string, { pool, copy = [] }: { pool: number; copy?: string[] }) =>
  [
    'setup: |',
    `  echo "$PWD" >> ${log}`,
    '  mkdir -p node_modules/dep',
    '  cp package-lock.json node_modules/dep/VERSION',
    'cache:',
    '  key: [package-lock.json]',
    '  paths: [node_modules]',
    ...(copy.length ? [`copy: [${copy.join(', ')}]`] : []),
    `pool: ${pool}`,
    '',
  ].join('\n');

/** How many times that setup ran. */
export const setupInvocations = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);

/** The workspace's pool worktrees on this server (`GET /api/workspaces/{id}`). */
export const poolWorktrees = async (server: TestServer, workspaceId: string): Promise<Json[]> =>
  (await api(server, 'GET', `/api/workspaces/${workspaceId}`)).body.pool.worktrees;

/** How many of them are ready at `commit`. */
export const readyPoolWorktrees = async (server: TestServer, workspaceId: string, commit: string) =>
  (await poolWorktrees(server, workspaceId)).filter((worktree) => worktree.state === 'ready' && worktree.commit === commit).length;
