import type { z } from 'zod';
import type { RunEvent } from './events.js';
import type { RunViewSchema } from './schemas.js';
import type { RunRecord } from './types.js';

/** A run as shown (schemas.ts `RunViewSchema`), with variables and events in the detail view. */
export type RunView = z.infer<typeof RunViewSchema> & { variables?: Record<string, string>; events?: RunEvent[] };

/**
 * What the API and CLI show of a run: the record without its definition snapshot (the workflow
 * endpoints serve definitions) and, outside the detail view, without trigger variables (a webhook
 * payload can be 256 KiB).
 */
export function toRunView(run: RunRecord, options: { detail?: boolean; events?: RunEvent[] } = {}): RunView {
  const { definition: _definition, variables, ...rest } = run;
  return {
    ...rest,
    ...(options.detail ? { variables } : {}),
    ...(options.events ? { events: options.events } : {}),
  };
}
