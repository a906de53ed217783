/**
 * GitHub's own webhook deliveries (docs/decisions.md, "Pull request reactions"): `POST
 * /webhooks/github`, signed as GitHub signs (`X-Hub-Signature-256`, the HMAC-SHA256 of the raw body
 * under `SVC_GITHUB_WEBHOOK_SECRET`), its event in `X-GitHub-Event`. Checked in the order of the
 * workflow webhook endpoint (size, by the route; secret; signature; a JSON object; the event), and
 * either of GitHub's content types (`application/json`, or its default form with the JSON in
 * `payload`: the signature is of the raw bytes either way), and
 * a delivery only makes svc look now at the pull requests it names — what is decided comes from gh.
 */

import { DomainError } from '../shared/errors.js';
import { SECRET_ADVICE, secretWeakness, verifySignature } from '../webhooks/index.js';
import { GITHUB_EVENTS, githubDeliveryRefs, type DeliveryRef } from './delivery.js';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';
export const GITHUB_EVENT_HEADER = 'x-github-event';

export type GitHubDelivery = { refs: DeliveryRef[] } | { skipped: string };

/** The pull requests a signed delivery names; refusals as DomainErrors (503 no or weak secret, 401 signature, 400 not JSON). */
export function readGitHubDelivery(
  secret: string | undefined,
  raw: Uint8Array,
  signature: string | null,
  event: string | null,
  contentType: string | null = null,
): GitHubDelivery {
  if (!secret) {
    throw new DomainError(
      'webhook_secret_missing',
      "GitHub deliveries are not configured: set SVC_GITHUB_WEBHOOK_SECRET to the secret of the repository's webhook.",
    );
  }
  if (secretWeakness(secret)) throw new DomainError('webhook_secret_weak', `SVC_GITHUB_WEBHOOK_SECRET holds no secret: ${SECRET_ADVICE}`);
  if (!verifySignature(secret, raw, signature)) {
    throw new DomainError('invalid_signature', `The ${GITHUB_SIGNATURE_HEADER} header is missing or is not the HMAC-SHA256 of the body.`);
  }
  let payload: unknown;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    // GitHub's default content type: the JSON is the form's `payload` field (signed as sent, above).
    const form = /^application\/x-www-form-urlencoded\b/i.test(contentType ?? '');
    payload = JSON.parse(form ? (new URLSearchParams(text).get('payload') ?? '') : text);
  } catch {
    throw new DomainError('invalid_json', 'The body is not JSON, nor a form whose `payload` is JSON.');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new DomainError('invalid_json', 'The body is not a JSON object.');
  if (!event || !(GITHUB_EVENTS as readonly string[]).includes(event)) return { skipped: `event ${event ?? '(none)'} is not one svc follows pull requests by` };
  return { refs: githubDeliveryRefs(event, payload) };
}
