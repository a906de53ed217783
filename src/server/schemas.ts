import * as z from 'zod';

/** The error body of every non-2xx answer (docs/contract.md, "Errors"). */
export const ErrorBodySchema = z.object({
  error: z.string().describe('snake_case error code'),
  message: z.string().describe('one sentence for a person'),
  details: z.unknown().optional(),
});
