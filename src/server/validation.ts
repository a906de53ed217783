import type { z } from 'zod';
import { DomainError } from '../shared/errors.js';

/** Bodies of API requests are capped at 1 MiB (docs/contract.md, "Errors": 413). */
export const API_BODY_LIMIT = 1024 * 1024;

/** Turns zod issues into the `details` of a 400 `invalid_request`. */
export function validationError(where: string, issues: readonly z.core.$ZodIssue[]): DomainError {
  const details = issues.map((issue) => ({
    path: issue.path.map(String).join('.') || where,
    message: issue.message,
  }));
  const first = details[0];
  const summary = first ? `${first.path === where ? where : `${where} ${first.path}`}: ${first.message}` : where;
  return new DomainError('invalid_request', `Invalid ${summary}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}.`, details);
}

export function validate<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error.issues);
  return result.data;
}
