import { assertBodySize, getRequestIP, HTTPError, type H3Event } from 'h3';
import type { IncomingMessage } from 'node:http';
import { DomainError, isDomainError } from '../shared/errors.js';
import { isLoopbackPeer } from './loopback.js';

/**
 * Whether the request came from another machine: its peer is no loopback address. In process
 * (no event) it came from this one.
 */
export function fromAnotherMachine(event: H3Event | undefined): boolean {
  const ip = event ? getRequestIP(event) : undefined;
  return ip !== undefined && !isLoopbackPeer(ip);
}

const tooLarge = (limit: number) => new DomainError('payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);

/**
 * `read`, or 408 `request_timeout` when it has not settled within `ms` (docs/contract.md, "HTTP").
 * A timer on the read itself: Node's own `requestTimeout` is looked at only every 30 s
 * (`connectionsCheckingInterval`), so a body trickled in a byte at a time held its socket for up
 * to 300 s. The read left behind settles when the connection closes after the answer.
 */
function withDeadline<T>(read: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DomainError('request_timeout', `The request body did not arrive whole within ${ms / 1000} s.`)), ms);
  });
  return Promise.race([read, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The body straight from node:http, without the web-stream wrapping (a third of a small webhook
 * delivery's cost). Only for a body with a Content-Length, checked first; node:http's parser
 * then delivers no more than it declared, and the count below is a second guard.
 */
function readNodeBody(event: H3Event, req: IncomingMessage, limit: number): Promise<Uint8Array> {
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (error?: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        return done(tooLarge(limit));
      }
      chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = () => done(new DomainError('invalid_request', 'The request body could not be read to its end.'));
    const onAborted = onError;
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function hasBody(event: H3Event): boolean {
  const length = event.req.headers.get('content-length');
  if (length !== null) return Number(length) > 0;
  return event.req.headers.has('transfer-encoding') && event.req.body !== null;
}

/**
 * Reads the body as bytes without ever buffering past `limit` (h3 checks Content-Length up front
 * and cuts chunked bodies off mid-stream), and without waiting for it past `timeoutMs`.
 */
export async function readRawBody(event: H3Event, limit: number, timeoutMs: number): Promise<Uint8Array> {
  const node = (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  // A body with a Content-Length (no chunked framing to cut off mid-stream) is read straight from node:http.
  if (node && !node.readableDidRead && event.req.headers.has('content-length') && !event.req.headers.has('transfer-encoding')) {
    return withDeadline(readNodeBody(event, node, limit), timeoutMs);
  }
  try {
    assertBodySize(event, limit);
    return new Uint8Array(await withDeadline(event.req.arrayBuffer(), timeoutMs));
  } catch (error) {
    if (isDomainError(error)) throw error;
    if ((error as { status?: number }).status === 413) {
      throw tooLarge(limit);
    }
    // A body cut off by its sender (the connection closed mid-body) is the sender's fault, not a 500.
    if (!HTTPError.isError(error)) throw new DomainError('invalid_request', 'The request body could not be read to its end.');
    throw error;
  }
}

export async function readJsonBody(event: H3Event, limit: number, timeoutMs: number): Promise<unknown> {
  if (!hasBody(event)) return undefined;
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new DomainError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const bytes = await readRawBody(event, limit, timeoutMs);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DomainError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}

export function queryObject(event: H3Event): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of event.url.searchParams) query[key] = value;
  return query;
}
