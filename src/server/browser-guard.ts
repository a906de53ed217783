import { DomainError } from '../shared/errors.js';
import { isLoopbackName } from './loopback.js';
import type { RequestHeaders } from './route.js';

/**
 * Keeps other web pages from driving the API through the user's browser (docs/decisions.md, "Dashboard safety"). The server is bound to loopback with no authentication, so any page the
 * user visits could otherwise post a form to `http://127.0.0.1:3090/api/workflows/runs/x/cancel`.
 *
 * - A state-changing call (POST, PUT, PATCH, DELETE) under `/api/` that names a body type must
 *   name JSON: a form (urlencoded, multipart, text/plain) is 415 before any route runs, even with
 *   an empty body. JSON cannot be sent cross-site without a CORS preflight, which we never grant.
 * - A browser's call says where it comes from (`Origin`, `Sec-Fetch-Site`); a state-changing call
 *   from another origin is 403, and a browser's state-changing call must be JSON (a bodiless
 *   `fetch(…, {mode: 'no-cors', method: 'POST'})` carries no Content-Type at all).
 * - Scripts and the CLI (no Origin, no body or a JSON one) are unaffected.
 *
 * Webhooks (`/webhooks/…`) are outside: they are signed, and senders choose their own content type.
 */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const WEBHOOK_PREFIX = '/webhooks/';

/**
 * DNS rebinding: a page at `http://evil.example:3090` whose name is made to resolve to 127.0.0.1
 * is same-origin with itself, so Origin checks pass; its requests still name `evil.example` in
 * `Host`. A server bound to loopback answers only requests addressed to a loopback name (or with
 * no Host at all: HTTP/1.0 scripts). A server bound elsewhere (`SVC_HOST`) was opened up on purpose
 * and is reached by names we cannot know. Webhooks are let in by any name: they come through
 * HTTPS tunnels (ngrok, cloudflared) that pass their public name on in `Host`, and each one is
 * checked by its signature instead.
 */
export function checkHost(host: string | null, boundToLoopback: boolean, pathname = '/'): void {
  if (!boundToLoopback || host === null || pathname.startsWith(WEBHOOK_PREFIX)) return;
  if (isLoopbackName(host)) return;
  throw new DomainError('host_refused', `This server is bound to loopback and answers only requests to localhost or 127.0.0.1, not to '${host}'.`);
}
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

export function checkBrowserRequest(method: string, pathname: string, headers: RequestHeaders): void {
  if (!STATE_CHANGING.has(method) || !pathname.startsWith('/api/')) return;
  const origin = headers.get('origin');
  const fetchSite = headers.get('sec-fetch-site');
  if (isCrossSite(origin, fetchSite, headers.get('host'))) {
    throw new DomainError(
      'cross_origin_refused',
      `A ${method} from another origin (${origin ?? fetchSite}) is refused: only the dashboard served by this server may change state from a browser.`,
    );
  }
  const type = headers.get('content-type');
  const fromBrowser = origin !== null || fetchSite !== null;
  if ((type !== null && !JSON_TYPE.test(type)) || (fromBrowser && type === null)) {
    throw new DomainError('unsupported_media_type', `A ${method} under /api/ must be sent with Content-Type: application/json.`);
  }
}

function isCrossSite(origin: string | null, fetchSite: string | null, host: string | null): boolean {
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return true;
  // `Origin: null` comes from sandboxed frames, data: URLs and file: pages: never ours.
  if (origin === null) return false;
  if (origin === 'null' || host === null) return true;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}
