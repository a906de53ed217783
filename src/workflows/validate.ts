/**
 * The one way into a workflow definition: YAML text or an already-parsed object in, either a
 * normalized `WorkflowDefinition` or every problem found out.
 *
 * All checks run in one pass — YAML duplicate keys, the schema, the cross-field rules — so a
 * person fixes everything at once instead of one error per attempt. Each error is one line naming
 * its place: `fix.yaml:12:7: nodes[1].depends_on: unknown node 'tset' (did you mean 'test'?)`.
 */

import type { Problem } from './problems.js';
import { toWorkflow } from './normalize.js';
import { RawWorkflowSchema } from './schema.js';
import type { RawWorkflow, WorkflowDefinition } from './schema.js';
import { semanticProblems } from './semantic-checks.js';
import { readYamlSource } from './yaml-source.js';
import type { YamlSource } from './yaml-source.js';
import { formatProblems } from './yaml-schema.js';
import { problemsFromZodIssues } from './zod-issues.js';

export type WorkflowValidation =
  { readonly ok: true; readonly workflow: WorkflowDefinition; readonly raw: RawWorkflow } | { readonly ok: false; readonly errors: string[] };

export interface ValidateOptions {
  /** Prefixed to every error (`file:line:col: …`), as compilers do, so editors can jump to it. */
  readonly filename?: string;
}

/**
 * Validates a workflow definition given as YAML text or as a parsed object (the API's
 * `definition` may be either). Never throws for bad input.
 */
export function validateWorkflowSource(input: unknown, opts: ValidateOptions = {}): WorkflowValidation {
  const source: YamlSource | undefined = typeof input === 'string' ? readYamlSource(input) : undefined;
  const value = source === undefined ? input : source.value;
  const problems: Problem[] = [...(source?.problems ?? [])];

  let raw: RawWorkflow | undefined;
  if (source === undefined || !source.fatal) {
    const parsed = RawWorkflowSchema.safeParse(value);
    if (parsed.success) raw = parsed.data;
    else problems.push(...problemsFromZodIssues(parsed.error.issues, value));
    problems.push(...semanticProblems(value));
  }

  if (problems.length === 0 && raw !== undefined) {
    return { ok: true, workflow: toWorkflow(raw), raw };
  }
  return { ok: false, errors: formatProblems(problems, source, opts.filename) };
}
