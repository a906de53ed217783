/**
 * Workspace shapes, once: the zod schemas here give the TypeScript types and the API's response
 * schemas (docs/contract.md, "Workspaces"). Field names are snake_case, as the API shows them.
 */

import * as z from 'zod';
import type { ShortIdKind } from '../shared/short-ids.js';

export const EnvScanSchema = z.object({
  status: z.enum(['clean', 'keys_found', 'unreadable']).describe('keys_found when an agent key matched; unreadable when a file could not be read'),
  files: z.array(z.string()).describe('the .env files found at the root'),
  keys: z.array(z.string()).describe('agent key names found (never values)'),
  unreadable: z.array(z.string()).describe('files that could not be read; never counted as matches'),
});

export const WorkspaceSchema = z.object({
  id: z.string(),
  name: z.string().describe('from the repository or folder name'),
  url: z.string().optional().describe('the clone URL (cloned workspaces only)'),
  path: z.string().describe('the local directory: our clone, or the directory registered'),
  source: z.enum(['clone', 'path']),
  default_branch: z.string().describe("the branch runs' worktrees start from; empty for a directory that is no git repository"),
  allow_env_keys: z.boolean().describe('consent to agents running despite agent keys in .env files'),
  env_scan: EnvScanSchema,
  env_keys: z.array(z.string()).describe('names of the workspace env vars (values are never returned)'),
  created_at: z.string(),
});
export type Workspace = z.infer<typeof WorkspaceSchema>;

/** A worktree of a workspace's pool (docs/decisions.md, "Setup cache and pool"): prepared ahead, never a run's until one takes it. */
export const PoolWorktreeSchema = z.object({
  name: z.string(),
  path: z.string().describe("its folder in this server's SVC_HOME"),
  commit: z.string().describe('the commit it is (being) prepared at'),
  state: z
    .enum(['ready', 'stale', 'preparing'])
    .describe(
      "ready: prepared at the default branch's tip; stale: at an older tip (still taken by a run whose base has the same setup cache key, until a fresh one replaces it); preparing: its setup is running",
    ),
  prepared_at: z.string().nullable().describe('when it became ready; null while preparing'),
  prepared_by: z.enum(['setup', 'cache', 'none']).nullable().describe('its setup script ran, the setup cache restored it, or there is no setup:'),
  started_at: z.string().optional().describe('while preparing: when it started'),
});

export const PoolViewSchema = z.object({
  size: z.number().int().describe("`pool:` in .svc/worktree.yaml at the default branch's tip: how many ready worktrees this server keeps"),
  worktrees: z.array(PoolWorktreeSchema),
  error: z.string().nullable().describe('why the pool is not full: its setup failed at this tip, or .svc/worktree.yaml is invalid there'),
});
export type PoolView = z.infer<typeof PoolViewSchema>;

/** `GET /api/workspaces/{id}`: the record and what its runs' worktrees take on this server's disk. */
export const WorkspaceDetailSchema = WorkspaceSchema.extend({
  pool: PoolViewSchema.describe("the workspace's pool of prepared worktrees in this server's home"),
  disk: z
    .object({
      worktrees: z.number().int().describe("run worktrees of this workspace present in this server's SVC_HOME"),
      bytes: z.number().int().describe('their apparent size, like du -sb (symlinks not followed)'),
    })
    .describe("what the workspace's run worktrees take on this server"),
});
export type WorkspaceDetail = z.infer<typeof WorkspaceDetailSchema>;

/** What is stored: the view plus the dedupe key (a normalized clone URL or a real path). */
export interface WorkspaceRecord extends Workspace {
  source_key: string;
}

export const EnvironmentSchema = z.object({
  id: z.string(),
  workspace_id: z.string(),
  repository: z.string().describe('the repository the worktree belongs to (the workspace path)'),
  path: z.string().describe('the worktree directory'),
  branch: z.string(),
  run_id: z.string(),
  created_at: z.string(),
  home_id: z.string().optional().describe('with a shared database: the SVC_HOME holding the worktree (only its servers touch it)'),
});
export type Environment = z.infer<typeof EnvironmentSchema>;

/** An environment as the API shows it: its state follows its run's. */
export const EnvironmentViewSchema = EnvironmentSchema.extend({
  status: z.enum(['active', 'ended']).describe('active while its run can still change; ended once the run is terminal or gone'),
  ended_at: z.string().nullable().describe('when its run ended'),
});
export type EnvironmentView = z.infer<typeof EnvironmentViewSchema>;

export const toWorkspaceView = ({ source_key: _key, ...view }: WorkspaceRecord): Workspace => view;

/**
 * How a workspace is named where one is asked for (docs/contract.md, "HTTP"): its
 * id, its name, or `ws_` and at least four more characters of its id — the rule run ids follow.
 */
export const WORKSPACE_IDS: ShortIdKind = {
  idPrefix: 'ws_',
  minChars: 4,
  noun: 'workspace',
  plural: 'workspaces',
  notFound: 'workspace_not_found',
  ambiguous: 'ambiguous_workspace',
  label: (w: Pick<WorkspaceRecord, 'id' | 'name' | 'path'>) => `${w.id} (${w.name}, ${w.path})`,
};
