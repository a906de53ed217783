/**
 * Discovery: which workflows exist for a working directory. Bundled workflows ship with svc;
 * project workflows are `.svc/workflows/*.yaml|yml` of a source: the workspace the request speaks
 * for, the cwd, each other registered workspace (docs/contract.md, "Workflow files"). The rules, in
 * the order they apply:
 * - every file is validated on its own; a broken file is reported in `errors` and never hides
 *   the others;
 * - a file's stem must equal its `name` (workflow-file.ts);
 * - two files of one name in one source are both errors, and neither is used; the same name in two
 *   sources is no clash (two repositories may each have their `fix-add`);
 * - a name means, from here, the first source that has it: the request's workspace, then the cwd,
 *   then bundled — and a broken or duplicated file claims its name as a good one would: the user
 *   meant to define it there, and silently running another instead would be the worse surprise;
 * - every other workspace's workflows are listed too, each with its workspace: they belong to it.
 */

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BUNDLED_WORKFLOWS_DIR, PROJECT_WORKFLOWS_DIR } from './bundled.js';
import { WorkflowFileCache } from './file-cache.js';
import { projectRoots, type ProjectRoot, type WorkspaceRef } from './project-roots.js';
import { type RawWorkflow, type WorkflowDefinition, fileStem, isWorkflowFileName, placeIn } from '../workflows/index.js';

export type WorkflowSource = 'bundled' | 'project';

export interface DiscoveredWorkflow {
  readonly name: string;
  readonly source: WorkflowSource;
  /** Absolute path of the file. */
  readonly filename: string;
  /** The project root the file was found under (cwd or workspace); null for bundled workflows. */
  readonly root: string | null;
  readonly workspaceId: string | null;
  /** The name of that workspace, when it has one. */
  readonly workspaceName: string | null;
  /** Whether the name means this workflow from the request's place; false for another workspace's. */
  readonly here: boolean;
  /** The definition as written (snake_case), validated. */
  readonly raw: RawWorkflow;
  readonly workflow: WorkflowDefinition;
  /** The file's text, to point error messages at a line. */
  readonly text: string;
}

/** One problem with one file; `error` is a complete `file:line:col: message` line. */
export interface DiscoveryError {
  readonly filename: string;
  readonly error: string;
}

export interface Discovery {
  /** Sorted by name. */
  readonly workflows: DiscoveredWorkflow[];
  readonly errors: DiscoveryError[];
  /** The project roots that were read (for the trigger registry's refresh). */
  readonly roots: ProjectRoot[];
  /** The workspace the request speaks for: the one asked for, else the one whose checkout holds the cwd. */
  readonly workspaceId: string | null;
  /** Every name the request's place defines, in a good file or a broken one: no other workspace's stands in for it. */
  readonly claimed: ReadonlySet<string>;
}

export interface DiscoverOptions {
  /** An existing absolute directory. */
  readonly cwd: string;
  readonly workspaces?: readonly WorkspaceRef[];
  /** The workspace the request speaks for (`--workspace`); by default the one whose checkout holds `cwd`. */
  readonly workspaceId?: string | null;
  /** Reuse one across calls: unchanged files are then not parsed again. */
  readonly cache?: WorkflowFileCache;
  readonly bundledDir?: string;
  /**
   * Whether the bundled workflows are read (default yes). A pass that looks only for triggers
   * leaves them out: no bundled workflow declares one (test/workflows/bundled.test.ts), and
   * parsing them was ~15 ms and ~4 MiB of every server start (docs/decisions.md, "Only what start-up needs loads at start-up").
   */
  readonly bundled?: boolean;
}

/** Workflow files of one folder, by name; a missing folder has none. */
async function listFolder(dir: string, errors: DiscoveryError[]): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    // Anything but a folder is tried, so a FIFO or a device is reported (file-cache.ts) rather than passed over.
    return entries
      .filter((entry) => !entry.isDirectory() && isWorkflowFileName(entry.name))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') errors.push({ filename: dir, error: `${dir}: cannot list: ${(error as Error).message}` });
    return [];
  }
}

async function readFolder(
  dir: string,
  origin: { source: WorkflowSource; root: ProjectRoot | null; workspaceName?: string | null },
  cache: WorkflowFileCache,
  errors: DiscoveryError[],
): Promise<{ found: DiscoveredWorkflow[]; brokenStems: string[] }> {
  const files = await listFolder(dir, errors);
  cache.prune(dir, new Set(files));
  const checks = await Promise.all(files.map((file) => cache.check(file)));
  const found: DiscoveredWorkflow[] = [];
  const brokenStems: string[] = [];
  checks.forEach((check, index) => {
    const filename = files[index] as string;
    if (check === undefined) return;
    if (!check.ok) {
      for (const error of check.errors) errors.push({ filename, error });
      brokenStems.push(fileStem(filename));
      return;
    }
    found.push({
      name: check.raw.name,
      source: origin.source,
      filename,
      root: origin.root?.dir ?? null,
      workspaceId: origin.root?.workspaceId ?? null,
      workspaceName: origin.workspaceName ?? null,
      here: false,
      raw: check.raw,
      workflow: check.workflow,
      text: check.text,
    });
  });
  return { found, brokenStems };
}

/** One source's workflows with a clash inside it reported: two files of one name there are both errors, and neither is used. */
function withoutClashes(found: DiscoveredWorkflow[], errors: DiscoveryError[]): DiscoveredWorkflow[] {
  const byName = new Map<string, DiscoveredWorkflow[]>();
  for (const workflow of found) byName.set(workflow.name, [...(byName.get(workflow.name) ?? []), workflow]);
  const kept: DiscoveredWorkflow[] = [];
  for (const [name, group] of byName) {
    if (group.length === 1) {
      kept.push(group[0] as DiscoveredWorkflow);
      continue;
    }
    for (const workflow of group) {
      const others = group.filter((other) => other !== workflow).map((other) => other.filename);
      errors.push({
        filename: workflow.filename,
        error: `${placeIn(workflow.text, workflow.filename, ['name'])}name: workflow '${name}' is defined more than once (also in ${others.join(', ')}); keep one of them`,
      });
    }
  }
  return kept;
}

/** Workflows first by name, then the one meant from here, then by workspace and file. */
function byNameThenPlace(a: DiscoveredWorkflow, b: DiscoveredWorkflow): number {
  if (a.name !== b.name) return a.name.localeCompare(b.name);
  if (a.here !== b.here) return a.here ? -1 : 1;
  return (a.workspaceId ?? '').localeCompare(b.workspaceId ?? '') || a.filename.localeCompare(b.filename);
}

export async function discoverWorkflows(options: DiscoverOptions): Promise<Discovery> {
  const cache = options.cache ?? new WorkflowFileCache();
  const errors: DiscoveryError[] = [];
  const workspaces = options.workspaces ?? [];
  const { here, elsewhere, workspaceId } = await projectRoots(options.cwd, workspaces, options.workspaceId ?? null);
  const nameOf = (root: ProjectRoot) => workspaces.find((w) => w.id === root.workspaceId)?.name ?? null;
  const read = (root: ProjectRoot) =>
    readFolder(join(root.dir, PROJECT_WORKFLOWS_DIR), { source: 'project', root, workspaceName: nameOf(root) }, cache, errors);
  const [bundled, ...projects] = await Promise.all([
    options.bundled === false ? undefined : readFolder(options.bundledDir ?? BUNDLED_WORKFLOWS_DIR, { source: 'bundled', root: null }, cache, errors),
    ...[...here, ...elsewhere].map(read),
  ]);

  // Each source in the order a name is looked up from here; the first that has a name (even broken) keeps it.
  const workflows: DiscoveredWorkflow[] = [];
  const claimed = new Set<string>();
  const sources = [...projects.slice(0, here.length), ...(bundled ? [bundled] : [])];
  for (const source of sources) {
    const names = new Set([...source.found.map((w) => w.name), ...source.brokenStems]);
    for (const workflow of withoutClashes(source.found, errors)) if (!claimed.has(workflow.name)) workflows.push({ ...workflow, here: true });
    for (const name of names) claimed.add(name);
  }
  for (const source of projects.slice(here.length)) workflows.push(...withoutClashes(source.found, errors));

  workflows.sort(byNameThenPlace);
  // Folders are read concurrently; sort so the same files always give the same report.
  errors.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  return { workflows, errors, roots: [...here, ...elsewhere], workspaceId, claimed };
}
