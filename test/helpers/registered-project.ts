// A git project registered by path as a workspace, with its workflows (and any extra files under it)
// committed, so that each run's worktree starts clean: the setup the workspace run tests share.
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { api, startRun, tempDir, waitForRun, writeWorkflows, type Json, type Workflow } from './runs.js';
import type { TestServer } from './server.js';
import { git, makeRepository } from './git.js';

export interface ProjectOptions {
  /** The first commit's files (default a README). */
  files?: Record<string, string>;
  workflows: Workflow[];
  /** More files, by path relative to the project, committed with the workflows. */
  extra?: Record<string, string>;
}

export async function registerProject(server: TestServer, { files = { 'README.md': '# project\n' }, workflows, extra = {} }: ProjectOptions) {
  const dir = join(await tempDir('svc-project-'), 'project');
  await mkdir(dir);
  makeRepository(dir, files);
  await writeWorkflows(dir, workflows);
  for (const [path, text] of Object.entries(extra)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'workflows');
  const { status, body } = await api(server, 'POST', '/api/workspaces', { path: dir });
  expect(status, JSON.stringify(body)).toBe(201);
  return { dir, workspace: body as Json };
}

/** Runs a workflow on the workspace to its end (or its first pause). */
export const runOn = async (server: TestServer, workflow: string, workspaceId: string): Promise<Json> =>
  waitForRun(server, await startRun(server, workflow, { message: '', workspaceId }));

/** A git repository (one commit: a README and `files`) holding `workflows`, not yet registered; removed by `cleanupAll`. */
export async function gitProject(workflows: Workflow[] = [], files: Record<string, string> = {}): Promise<string> {
  const dir = join(await tempDir('svc-repo-'), 'repo');
  await mkdir(dir);
  makeRepository(dir, { 'README.md': 'x\n', ...files });
  if (workflows.length) await writeWorkflows(dir, workflows);
  return dir;
}

/** Registers `path` as a workspace and asserts the 201. */
export async function registerWorkspace(server: TestServer, path: string): Promise<Json> {
  const { status, body } = await api(server, 'POST', '/api/workspaces', { path });
  expect(status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The `svc/*` branches of a repository, one a line. */
export const svcBranches = (dir: string) => git(dir, 'branch', '--list', '--format=%(refname:short)', 'svc/*');
