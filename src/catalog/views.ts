/**
 * What the API answers about workflows (and the CLI prints offline), built in one place so the
 * two doors cannot drift. `workflow` is always the definition as written (snake_case): what a
 * person edits, and what PUT takes back unchanged.
 */

import type { SavedWorkflow } from './catalog.js';
import type { CommandEntry, CommandList } from './commands.js';
import type { DiscoveredWorkflow, Discovery, DiscoveryError, WorkflowSource } from './discovery.js';
import type { RawWorkflow } from '../workflows/index.js';

export interface WorkflowSummary {
  readonly name: string;
  readonly description: string;
  readonly source: WorkflowSource;
  readonly filename: string;
  /** How many nodes. */
  readonly nodes: number;
  readonly triggers: { readonly kind: 'webhook'; readonly event: string; readonly slug: string }[];
  readonly workspaceId: string | null;
  /** That workspace's name. */
  readonly workspaceName: string | null;
}

export interface WorkflowListing {
  readonly workflows: WorkflowSummary[];
  /** Only present when some file failed to load. */
  readonly errors?: DiscoveryError[];
}

export interface CommandListing {
  readonly commands: CommandEntry[];
  /** Only present when some command file was refused or could not be read. */
  readonly errors?: DiscoveryError[];
}

export interface WorkflowDocument {
  readonly workflow: RawWorkflow;
  readonly filename: string;
  readonly source: WorkflowSource;
  readonly workspaceId: string | null;
}

export interface SavedWorkflowDocument extends WorkflowDocument {
  /** What discovery reports about the saved file; only present when it reports something. */
  readonly errors?: string[];
}

export function toWorkflowSummary(w: DiscoveredWorkflow): WorkflowSummary {
  return {
    name: w.name,
    description: w.raw.description,
    source: w.source,
    filename: w.filename,
    nodes: w.raw.nodes.length,
    triggers: (w.raw.triggers?.webhook ?? []).map((t) => ({ kind: 'webhook' as const, event: t.event, slug: t.slug })),
    workspaceId: w.workspaceId,
    workspaceName: w.workspaceName,
  };
}

export function toWorkflowListing(discovery: Discovery): WorkflowListing {
  return {
    workflows: discovery.workflows.map(toWorkflowSummary),
    ...(discovery.errors.length > 0 ? { errors: discovery.errors } : {}),
  };
}

export function toCommandListing(list: CommandList): CommandListing {
  return { commands: list.commands, ...(list.errors.length > 0 ? { errors: list.errors } : {}) };
}

export function toWorkflowDocument(w: DiscoveredWorkflow): WorkflowDocument {
  return { workflow: w.raw, filename: w.filename, source: w.source, workspaceId: w.workspaceId };
}

export function toSavedDocument(saved: SavedWorkflow): SavedWorkflowDocument {
  return {
    workflow: saved.raw,
    filename: saved.filename,
    source: 'project',
    workspaceId: saved.workspaceId,
    ...(saved.errors.length > 0 ? { errors: saved.errors } : {}),
  };
}
