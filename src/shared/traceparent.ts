/**
 * W3C trace context's `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`. Read from outside (a webhook delivery's
 * header) and kept on a run record, so it is checked here, below every layer, without loading any
 * tracing library (docs/decisions.md, "Traces").
 */

/** A version-00 traceparent, lower-case as the specification requires. */
export const TRACEPARENT_PATTERN = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

const ALL_ZEROS = /^0+$/;

/**
 * The traceparent a header value carries, as version 00, or undefined when it carries none that
 * is valid: a malformed value is ignored, never an error (the sender's tracing is not svc's to
 * refuse). A later version is read by its first four fields, as the specification asks; version
 * `ff` and all-zero ids are invalid.
 */
export function parseTraceparent(value: string | null | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const match = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(text);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-${flags}`;
}

/** The parts of a valid version-00 traceparent (`parseTraceparent`'s result). */
export function traceparentParts(traceparent: string): { traceId: string; spanId: string; flags: number } {
  const [, traceId, spanId, flags] = traceparent.split('-') as [string, string, string, string];
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/** A span's context as a version-00 traceparent. */
export function formatTraceparent(traceId: string, spanId: string, flags: number): string {
  return `00-${traceId}-${spanId}-${(flags & 0xff).toString(16).padStart(2, '0')}`;
}
