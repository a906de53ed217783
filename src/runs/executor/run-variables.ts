import type { PromptVariable } from '../../workflows/index.js';
import type { RunRecord } from '../model/types.js';

/**
 * The values of the run variables (docs/contract.md, "Workflow files") that every node sees, as
 * text in prompts and as env in bash. Their names, and where each value comes from, are the
 * workflow language's (workflows/run-variables.ts): a name here that the language does not know
 * fails to compile. The webhook's and the schedule's come in `run.variables`.
 */
export function runVariables(run: RunRecord, artifactsDir: string, port?: number): Record<string, string> {
  const own = {
    ARGUMENTS: run.message,
    USER_MESSAGE: run.message,
    RUN_ID: run.id,
    WORKFLOW_NAME: run.workflow,
    ARTIFACTS_DIR: artifactsDir,
    WORKSPACE_DIR: run.cwd,
  } satisfies Partial<Record<PromptVariable, string>>;
  return { ...own, ...run.variables, ...(port === undefined ? {} : ({ SVC_PORT: String(port) } satisfies Partial<Record<PromptVariable, string>>)) };
}
