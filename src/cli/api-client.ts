import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readLock } from '../store/lock.js';
import { CliError, EXIT } from './exit-codes.js';

/** A non-2xx answer from the server, carrying the contract's error body. */
export class ApiResponseError extends CliError {
  constructor(
    readonly status: number,
    readonly body: { error?: string; message?: string; [key: string]: unknown },
  ) {
    super(body.message ?? `The server answered ${status}.`, EXIT.failed);
    this.name = 'ApiResponseError';
  }
}

export class ServerUnreachableError extends CliError {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`No svc server is reachable at ${url} (${reason}). Start one with \`svc serve\`, or pass --url.`, EXIT.unreachable);
    this.name = 'ServerUnreachableError';
  }
}

export interface ApiClient {
  readonly baseUrl: string;
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/**
 * A tiny JSON client on node:http: the first `fetch()` in a fresh Node 20 process costs ~30 ms
 * more (undici loads lazily), and CLI calls are short-lived processes.
 */
export function createApiClient(baseUrl: string): ApiClient {
  const base = new URL(baseUrl);
  return {
    baseUrl,
    request<T>(method: string, path: string, body?: unknown) {
      const url = new URL(path, base);
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      return new Promise<T>((resolve, reject) => {
        const req = send(
          url,
          {
            method,
            headers: {
              accept: 'application/json',
              ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
            },
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
              const status = res.statusCode ?? 0;
              if (status >= 200 && status < 300) resolve(parsed as T);
              else
                reject(new ApiResponseError(status, typeof parsed === 'object' && parsed ? (parsed as Record<string, unknown>) : { message: String(parsed) }));
            });
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => reject(new ServerUnreachableError(baseUrl, error.code ?? error.message)));
        req.setTimeout(30_000, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
        req.end(payload);
      });
    },
  };
}

export interface ServerTarget {
  url: string;
  /** The user named this server (--url / SVC_URL); never fall back to the store behind their back. */
  explicit: boolean;
  /** A live server holds the store lock in $SVC_HOME. */
  running: boolean;
}

/**
 * Which server to talk to: `--url`, then `SVC_URL`, then the URL a live server wrote into the
 * store lock of `$SVC_HOME`, then `http://127.0.0.1:$PORT` (3090).
 */
export function resolveServer(flagUrl: string | undefined, env: NodeJS.ProcessEnv, home: string): ServerTarget {
  if (flagUrl) return { url: flagUrl, explicit: true, running: true };
  if (env.SVC_URL) return { url: env.SVC_URL, explicit: true, running: true };
  const holder = readLock(home);
  if (holder?.kind === 'server' && holder.url) return { url: holder.url, explicit: false, running: true };
  return { url: `http://127.0.0.1:${env.PORT || 3090}`, explicit: false, running: false };
}
