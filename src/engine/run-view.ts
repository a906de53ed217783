import type { RunEvent } from './events.js';
import type { RunRecord } from './types.js';

/**
 * What the API and CLI show of a run: the record without its definition snapshot (the workflow
 * endpoints serve definitions) and, outside the detail view, without trigger variables (a webhook
 * payload can be 256 KiB).
 */
export function toRunView(run: RunRecord, options: { detail?: boolean; events?: RunEvent[] } = {}) {
  const { definition: _definition, variables, ...rest } = run;
  return {
    ...rest,
    ...(options.detail ? { variables } : {}),
    ...(options.events ? { events: options.events } : {}),
  };
}
export type RunView = ReturnType<typeof toRunView>;
