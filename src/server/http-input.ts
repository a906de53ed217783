import { assertBodySize, HTTPError, type H3Event } from 'h3';
import { ApiError, badRequest } from '../shared/errors.js';

function hasBody(event: H3Event): boolean {
  const length = event.req.headers.get('content-length');
  if (length !== null) return Number(length) > 0;
  return event.req.headers.has('transfer-encoding') && event.req.body !== null;
}

/**
 * Reads the body as bytes without ever buffering past `limit` (h3 checks Content-Length up front
 * and cuts chunked bodies off mid-stream).
 */
export async function readRawBody(event: H3Event, limit: number): Promise<Uint8Array> {
  try {
    assertBodySize(event, limit);
    return new Uint8Array(await event.req.arrayBuffer());
  } catch (error) {
    if ((error as { status?: number }).status === 413) {
      throw new ApiError(413, 'payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);
    }
    // A body cut off by its sender (the connection closed mid-body) is the sender's fault, not a 500.
    if (!HTTPError.isError(error)) throw badRequest('invalid_request', 'The request body could not be read to its end.');
    throw error;
  }
}

export async function readJsonBody(event: H3Event, limit: number): Promise<unknown> {
  if (!hasBody(event)) return undefined;
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const bytes = await readRawBody(event, limit);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

export function queryObject(event: H3Event): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of event.url.searchParams) query[key] = value;
  return query;
}
