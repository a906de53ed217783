/**
 * The schemas of values written with a unit in workflow YAML — durations (`timeout: 30s`) and sizes
 * (`max_memory: 2GB`) — each checked by its one parser, so a message says how the value may be written.
 */

import * as z from 'zod';
import { DURATION_HINT, parseDuration } from '../shared/duration.js';
import { parseSize, SIZE_HINT } from '../shared/size.js';
import { describeValue, quoteValue } from './problems.js';

/** Node.js timers fire at once beyond 2^31-1 ms (~24.8 days); longer durations would not wait at all. */
export const MAX_DURATION_MS = 2_147_483_647;

export function durationSchema(kind: 'timeout' | 'idle_timeout' | 'delay' | 'wait') {
  return z
    .union([z.number(), z.string()], { error: (issue) => `expected a duration (${DURATION_HINT}), got ${describeValue(issue.input)}` })
    .superRefine((value, ctx) => {
      const ms = parseDuration(value);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `invalid duration ${quoteValue(value)} (use ${DURATION_HINT})` });
      } else if (kind !== 'delay' && ms === 0) {
        ctx.addIssue({ code: 'custom', message: `${kind === 'timeout' ? 'a timeout' : kind === 'wait' ? 'a wait' : 'an idle_timeout'} must be longer than 0` });
      } else if (ms > MAX_DURATION_MS) {
        ctx.addIssue({ code: 'custom', message: `${quoteValue(value)} is too long (at most 596h)` });
      }
    });
}
/** A size in bytes with its unit (`600MB`, `2GB`, `512KiB`): `max_memory`. */
export const sizeSchema = z.string({ error: (issue) => `expected a size (${SIZE_HINT}), got ${describeValue(issue.input)}` }).superRefine((value, ctx) => {
  const bytes = parseSize(value);
  if (bytes === null) ctx.addIssue({ code: 'custom', message: `invalid size ${quoteValue(value)} (use ${SIZE_HINT})` });
  else if (bytes === 0) ctx.addIssue({ code: 'custom', message: 'a size must be more than 0' });
});
