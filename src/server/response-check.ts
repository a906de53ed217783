import type { z } from 'zod';
import { errorStatusesOf, type RouteSpec } from './route.js';
import { ErrorBodySchema } from './schemas.js';

export interface ResponseIssue {
  path: string;
  message: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** Streams, Response objects and bytes carry their own content; everything else is sent as JSON. */
const isOwnContent = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value);

/**
 * Members the answer has and the parsed value lost. zod's objects drop unknown keys silently,
 * while the document says `additionalProperties: false` for them: a member the schema does not
 * name is drift too. Objects declared `.passthrough()` or as records keep their keys.
 */
function undocumentedMembers(sent: unknown, parsed: unknown, path: string[] = []): ResponseIssue[] {
  if (Array.isArray(sent) && Array.isArray(parsed)) return sent.flatMap((item, index) => undocumentedMembers(item, parsed[index], [...path, String(index)]));
  if (!isPlainObject(sent) || !isPlainObject(parsed)) return [];
  return Object.keys(sent).flatMap((key) =>
    key in parsed
      ? undocumentedMembers(sent[key], parsed[key], [...path, key])
      : [{ path: [...path, key].join('.'), message: 'member not in the documented schema' }],
  );
}

/** The schema an answer with this status must match; `null` when nothing is documented to check. */
function documentedSchema(route: RouteSpec, status: number): z.ZodType | null | undefined {
  const response = route.responses[status];
  if (response) return response.contentType && !/json/.test(response.contentType) ? null : (response.schema ?? null);
  if (status === 500 || errorStatusesOf(route).includes(status)) return ErrorBodySchema;
  return undefined;
}

/**
 * Checks one answer against what its route documents (OpenAPI comes from the same table): the
 * status must be documented, and a JSON body must match its schema with no extra members.
 * Returns the problems, or an empty list.
 */
export function checkResponse(route: RouteSpec, status: number, body: unknown): ResponseIssue[] {
  const schema = documentedSchema(route, status);
  if (schema === undefined) return [{ path: '', message: `status ${status} is not documented for ${route.method} ${route.path}` }];
  if (schema === null || isOwnContent(body)) return [];
  const result = schema.safeParse(body);
  if (!result.success) return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  return undocumentedMembers(body, result.data);
}
