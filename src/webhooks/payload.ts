/**
 * What the webhook endpoint reads from a verified payload (docs/decisions.md, "Webhooks"): the JSON
 * object itself, its `event`, whether the trigger's filter matches, and the idempotency key. Field
 * names are top-level members of the payload; nothing here trusts the payload's shape.
 */

import type { FilterValue } from '../workflows/index.js';

export type Payload = Record<string, unknown>;

/** The payload when the bytes are UTF-8 JSON text holding an object; undefined otherwise. */
export function parsePayload(raw: Uint8Array): Payload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Payload) : undefined;
}

const own = (payload: Payload, field: string): unknown => (Object.hasOwn(payload, field) ? payload[field] : undefined);

/** The payload's event name, when it has a string `event`. */
export function eventOf(payload: Payload): string | undefined {
  const event = own(payload, 'event');
  return typeof event === 'string' ? event : undefined;
}

/** Every filter field equals its expected value (same type, same value). */
export function matchesFilter(payload: Payload, filter: Readonly<Record<string, FilterValue>>): boolean {
  return Object.entries(filter).every(([field, expected]) => own(payload, field) === expected);
}

/**
 * The idempotency key as text: a string (not empty), a finite number or a boolean at `field`;
 * undefined for a missing field, null, an object, an array or an empty string.
 */
export function idempotencyKeyOf(payload: Payload, field: string): string | undefined {
  const value = own(payload, field);
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  return undefined;
}
