/**
 * The webhook signature (docs/decisions.md, "Webhooks"): `x-svc-signature-256: sha256=<hex>`, the
 * HMAC-SHA256 of the exact raw body keyed with the trigger's secret — GitHub's format, so its
 * producers and libraries verify unchanged. The hex is compared as bytes in constant time, so
 * uppercase hex verifies too; anything that is not `sha256=` and 64 hex digits is simply invalid.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-signature-256';

const SIGNATURE_PATTERN = /^sha256=([0-9a-fA-F]{64})$/;

/** The header value a producer sends for `body`. */
export function signBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when `header` is a valid signature of `body` under `secret`. */
export function verifySignature(secret: string, body: Uint8Array, header: string | null): boolean {
  const match = header === null ? null : SIGNATURE_PATTERN.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1] as string, 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
