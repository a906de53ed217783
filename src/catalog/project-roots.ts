/**
 * The directories whose `.svc/` folders discovery reads: the request's cwd, then every registered
 * workspace. Workspaces are a later feature; their collection is read defensively so discovery
 * works (on the cwd alone) when it is empty, missing or holds records of another shape.
 */

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { Store } from '../store/index.js';

export interface WorkspaceRef {
  readonly id: string;
  /** The workspace's local directory (a clone or a registered path). */
  readonly path: string;
}

export interface ProjectRoot {
  readonly dir: string;
  /** The workspace this directory is, if any (the cwd may be one). */
  readonly workspaceId: string | null;
}

/** The store collection the workspaces feature keeps its records in, `{id, path, …}` each. */
export const WORKSPACES_COLLECTION = 'workspaces';

/** Registered workspaces with a usable absolute `path`; anything else in the collection is skipped. */
export async function readWorkspaces(store: Store): Promise<WorkspaceRef[]> {
  try {
    // 'single': workspaces are few; the workspaces feature must open it with the same layout.
    const collection = await store.collection<{ id: string; path?: unknown }>(WORKSPACES_COLLECTION, 'single');
    return collection
      .all()
      .filter((w): w is { id: string; path: string } => typeof w.id === 'string' && typeof w.path === 'string' && isAbsolute(w.path))
      .map((w) => ({ id: w.id, path: w.path }));
  } catch {
    return [];
  }
}

async function canonical(dir: string): Promise<string | undefined> {
  try {
    if (!(await stat(dir)).isDirectory()) return undefined;
    return await realpath(dir);
  } catch {
    return undefined;
  }
}

/**
 * The cwd first, then the workspaces, each directory once (compared by real path, so a workspace
 * that IS the cwd is read once and keeps its workspace id). Missing directories are left out.
 */
export async function projectRoots(cwd: string, workspaces: readonly WorkspaceRef[]): Promise<ProjectRoot[]> {
  const workspaceReal = await Promise.all(workspaces.map((w) => canonical(w.path)));
  const seen = new Map<string, ProjectRoot>();
  const cwdReal = await canonical(cwd);
  if (cwdReal !== undefined) {
    const index = workspaceReal.indexOf(cwdReal);
    seen.set(cwdReal, { dir: cwd, workspaceId: index === -1 ? null : (workspaces[index] as WorkspaceRef).id });
  }
  workspaces.forEach((workspace, index) => {
    const real = workspaceReal[index];
    if (real !== undefined && !seen.has(real)) seen.set(real, { dir: workspace.path, workspaceId: workspace.id });
  });
  return [...seen.values()];
}
