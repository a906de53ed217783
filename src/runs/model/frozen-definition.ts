import { validateWorkflowSource, type WorkflowValidation } from '../../workflows/index.js';
import type { RunRecord } from './types.js';

/**
 * A run executes the definition frozen on its record when it was created (docs/decisions.md,
 * "Versions"), so every reader of it — the launch, a gate's message, the auto-resume decision —
 * asks here, and it is parsed once per record: snapshots of one run share the definition object.
 */
const parsed = new WeakMap<object, WorkflowValidation>();

export function frozenDefinition(run: Pick<RunRecord, 'definition'>): WorkflowValidation {
  const { definition } = run;
  if (typeof definition !== 'object' || definition === null) return validateWorkflowSource(definition);
  let validation = parsed.get(definition);
  if (!validation) {
    validation = validateWorkflowSource(definition);
    parsed.set(definition, validation);
  }
  return validation;
}
