import type { WorkflowDefinition } from '../../workflows/index.js';

/** A workflow found for a run: the normalized definition, the definition as written, and where. */
export interface ResolvedWorkflow {
  workflow: WorkflowDefinition;
  definition: unknown;
  /** The registered workspace the workflow was found in, if any. */
  workspaceId: string | null;
}

/** How the engine finds workflows and command prompts; discovery implements it. */
export interface WorkflowResolver {
  resolve(name: string, cwd: string): Promise<ResolvedWorkflow | undefined>;
  loadCommand(name: string, cwd: string): Promise<string | undefined>;
}
