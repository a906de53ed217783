import { ServerExchangeError, ServerUnreachableError } from './errors.js';

/**
 * Errors that mean no server took the request: only these may let the CLI fall back to the
 * store. Anything after the connection was made (a reset, a timeout) might have been acted on.
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOENT']);

/** A read that takes longer is given up; a write (a clone, a run start in a big repository) waits as long as the server takes. */
const READ_TIMEOUT_MS = 30_000;
import { requestHeaders, type ApiAnswer, type ApiRequest, type Transport } from './transport.js';

/** A JSON exchange on node:http (see transport.ts for why not fetch); node:https (TLS) loads only for https URLs. */
export async function sendHttp(baseUrl: string, request: ApiRequest, readTimeoutMs = READ_TIMEOUT_MS): Promise<ApiAnswer> {
  const { method, path, body } = request;
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const { request: send } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<ApiAnswer>((resolve, reject) => {
    const req = send(
      url,
      {
        method,
        headers: requestHeaders(request, payload?.length),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // Not JSON: keep the text for the error message.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ?? error.message;
      reject(error.code && NOT_CONNECTED.has(error.code) ? new ServerUnreachableError(baseUrl, reason) : new ServerExchangeError(baseUrl, reason));
    });
    if (method === 'GET') req.setTimeout(readTimeoutMs, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.end(payload);
  });
}

/** A server over HTTP; streams are Server-Sent Events (events.ts). */
export function httpTransport(baseUrl: string, options: { readTimeoutMs?: number } = {}): Transport {
  return {
    baseUrl,
    send: (request) => sendHttp(baseUrl, request, options.readTimeoutMs),
    runHost: async () => 'server',
    close: async () => {},
  };
}
