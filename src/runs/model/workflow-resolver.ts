import type { WorkflowDefinition } from '../../workflows/index.js';

/** A workflow found for a run: the normalized definition, the definition as written, and where. */
export interface ResolvedWorkflow {
  workflow: WorkflowDefinition;
  definition: unknown;
  /** The registered workspace the workflow was found in, if any. */
  workspaceId: string | null;
  /** The workspace the start speaks for: the one it named, else the one whose checkout holds its cwd; null for none. */
  workspaceHere?: string | null;
}

/** How the engine finds workflows and command prompts; discovery implements it. */
export interface WorkflowResolver {
  /** The workflow `name` means from `cwd`, or from `workspaceId` when the start names one: that workspace's own first. */
  resolve(name: string, cwd: string, workspaceId?: string | null): Promise<ResolvedWorkflow | undefined>;
  loadCommand(name: string, cwd: string): Promise<string | undefined>;
}
