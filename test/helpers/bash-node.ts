// The validation errors of one bash script as a workflow node: the check of outside values and the
// parser's second reading (src/workflows/shell/) speak through these, as `svc workflow validate` does.
import { validateWorkflowSource } from '../../src/workflows/validate.js';

/** The validation errors of a bash node `b` downstream of a node `x` (so `$x.output` is a valid reference). */
export function bashErrors(script: string): string[] {
  const result = validateWorkflowSource({
    name: 'w',
    description: 'd',
    nodes: [
      { id: 'x', bash: 'echo' },
      { id: 'b', bash: script, depends_on: ['x'] },
    ],
  });
  return result.ok ? [] : result.errors;
}
