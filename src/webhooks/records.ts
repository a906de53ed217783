/** The records webhooks keep (docs/decisions.md, "Webhooks"). */

/**
 * One accepted idempotency key of one slug, kept until `expiresAt`. `reserved` is written (durably)
 * before the run is created and `accepted` after: a record left `reserved` by a crash whose run
 * does not exist is taken over by the next delivery of that key, so a crash loses no delivery and
 * never makes two runs.
 */
export interface DedupeRecord {
  /** sha256 of slug and key: one record per (slug, key), whatever the key's characters. */
  readonly id: string;
  readonly slug: string;
  readonly key: string;
  /** sha256 of the raw body, hex. */
  readonly bodyHash: string;
  readonly runId: string;
  readonly state: 'reserved' | 'accepted';
  /** ISO time of the accepted delivery. */
  readonly firstReceivedAt: string;
  /** Epoch milliseconds: after this the key is accepted again. */
  readonly expiresAt: number;
}

export const DELIVERY_OUTCOMES = [
  'accepted',
  'duplicate',
  'event_mismatch',
  'filter_mismatch',
  'webhook_trigger_not_found',
  'webhook_secret_missing',
  'webhook_secret_weak',
  'invalid_signature',
  'invalid_json',
  'invalid_idempotency_key',
  'idempotency_key_conflict',
  'workflow_not_available',
  /** A signalling trigger (`signal:`): the payload's `run_field` names no run id. */
  'invalid_run_field',
  /** A signalling trigger: no run has that id. */
  'run_not_found',
  /** A signalling trigger: the run has no node waiting for the event (409, as `POST …/signal`). */
  'not_waiting',
] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** One delivery as the history shows it: never the secret, the signature or the payload. */
export interface DeliveryRecord {
  readonly id: string;
  readonly slug: string;
  readonly workflow: string | null;
  readonly outcome: DeliveryOutcome;
  readonly status: number;
  readonly event: string | null;
  readonly key: string | null;
  readonly runId: string | null;
  readonly receivedAt: string;
}
