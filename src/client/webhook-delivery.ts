/**
 * Posts a webhook delivery as a producer does: the exact bytes, with the headers given (the
 * signature among them). Not a JSON exchange like the rest of the client (transport.ts): the
 * body must reach the server byte for byte, so it is sent as it is, over node:http(s).
 */

import { ServerUnreachableError } from './errors.js';

export interface DeliveryAnswer {
  status: number;
  /** The answer's text as received. */
  text: string;
}

export async function postWebhook(baseUrl: string, slug: string, body: Uint8Array, headers: Record<string, string>): Promise<DeliveryAnswer> {
  const url = new URL(`/webhooks/workflow/${encodeURIComponent(slug)}`, baseUrl);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => reject(new ServerUnreachableError(baseUrl, error.code ?? error.message)));
    req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.end(body);
  });
}

/** A webhook URL for `slug` on `baseUrl` (what a producer is configured with). */
export const webhookUrl = (baseUrl: string, slug: string) => new URL(`/webhooks/workflow/${encodeURIComponent(slug)}`, baseUrl).toString();
