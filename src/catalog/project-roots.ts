/**
 * The directories whose `.svc/` folders discovery reads: the request's workspace and cwd, then every
 * other registered workspace. The workspaces' collection is read defensively so discovery works (on
 * the cwd alone) when it is empty, missing or holds records of another shape.
 */

import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import type { Store } from '../store/index.js';

export interface WorkspaceRef {
  readonly id: string;
  /** The workspace's local directory (a clone or a registered path). */
  readonly path: string;
  /** Its name (the registered directory's or repository's), shown beside its workflows. */
  readonly name?: string;
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
    const collection = await store.collection<{ id: string; path?: unknown; name?: unknown }>(WORKSPACES_COLLECTION, 'single');
    return collection
      .all()
      .filter((w): w is { id: string; path: string; name?: unknown } => typeof w.id === 'string' && typeof w.path === 'string' && isAbsolute(w.path))
      .map((w) => ({ id: w.id, path: w.path, ...(typeof w.name === 'string' ? { name: w.name } : {}) }));
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

/** Whether `dir` is `root` or lies under it (both real paths). */
const isWithin = (dir: string, root: string) => dir === root || dir.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The directories discovery reads, split by what a workflow name means from the request's place
 * (docs/contract.md, "Workflow files"). `here`, in the order a name is looked up: the workspace the
 * request speaks for — the one asked for, else the one whose checkout holds the cwd (the deepest) —
 * then the cwd's own project when it is another directory. `elsewhere`: every other registered
 * workspace, whose workflows belong to it and are listed with it. Each directory once (compared by
 * real path, so a workspace that IS the cwd keeps its id); missing directories are left out.
 */
export interface ProjectRoots {
  readonly here: ProjectRoot[];
  readonly elsewhere: ProjectRoot[];
  /** The workspace the request speaks for, if any. */
  readonly workspaceId: string | null;
}

export async function projectRoots(cwd: string, workspaces: readonly WorkspaceRef[], asked: string | null = null): Promise<ProjectRoots> {
  const reals = await Promise.all(workspaces.map((w) => canonical(w.path)));
  const cwdReal = await canonical(cwd);
  let home = asked === null ? -1 : workspaces.findIndex((w) => w.id === asked);
  if (asked === null && cwdReal !== undefined) {
    reals.forEach((real, index) => {
      if (real !== undefined && isWithin(cwdReal, real) && (home === -1 || real.length > (reals[home] as string).length)) home = index;
    });
  }
  const homeReal = home === -1 ? undefined : reals[home];
  const here: ProjectRoot[] = [];
  if (home !== -1 && homeReal !== undefined) {
    const workspace = workspaces[home] as WorkspaceRef;
    // The cwd itself when it is the workspace's directory: the path the request named.
    here.push({ dir: homeReal === cwdReal ? cwd : workspace.path, workspaceId: workspace.id });
  }
  if (cwdReal !== undefined && cwdReal !== homeReal) {
    const index = reals.indexOf(cwdReal);
    here.push({ dir: cwd, workspaceId: index === -1 ? null : (workspaces[index] as WorkspaceRef).id });
  }
  const seen = new Set([homeReal, cwdReal]);
  const elsewhere: ProjectRoot[] = [];
  workspaces.forEach((workspace, index) => {
    const real = reals[index];
    if (real === undefined || seen.has(real)) return;
    seen.add(real);
    elsewhere.push({ dir: workspace.path, workspaceId: workspace.id });
  });
  return { here, elsewhere, workspaceId: home === -1 ? null : (workspaces[home] as WorkspaceRef).id };
}
