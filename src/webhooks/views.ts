/** What the API shows of webhooks (docs/decisions.md, "Webhooks"): never a secret, a signature or a payload. */

import * as z from 'zod';
import type { TriggerRecord } from './trigger-registry.js';
import { DELIVERY_OUTCOMES, type DeliveryRecord } from './records.js';
import type { SecretStatus } from './service.js';

export const WebhookTriggerViewSchema = z.object({
  slug: z.string(),
  workflow: z.string(),
  event: z.string(),
  workspace_id: z.string().nullable(),
  secret_env: z.string().describe('the NAME of the variable holding the secret'),
  secret_configured: z.boolean().describe('whether that variable is set (workspace env vars, then the server environment)'),
  secret_weak: z
    .boolean()
    .describe('set, but to a value too easy to guess to be a secret: deliveries are refused with 503 webhook_secret_weak (docs/decisions.md, Webhooks)'),
  idempotency_key: z.string(),
  dedupe_window_sec: z.number().int(),
  filter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  signal: z.string().optional().describe('a delivery signals this event to a waiting run instead of starting one (docs/decisions.md, Waits and signals)'),
  run_field: z.string().optional().describe('with `signal`: the payload field holding the id of the run to signal'),
});
export type WebhookTriggerView = z.infer<typeof WebhookTriggerViewSchema>;

export const DeliveryViewSchema = z.object({
  id: z.string(),
  slug: z.string(),
  workflow: z.string().nullable(),
  outcome: z.enum(DELIVERY_OUTCOMES),
  status: z.number().int(),
  event: z.string().nullable(),
  key: z.string().nullable(),
  run_id: z.string().nullable(),
  received_at: z.string(),
});
export type DeliveryView = z.infer<typeof DeliveryViewSchema>;

export const toTriggerView = (t: TriggerRecord, secret: SecretStatus['state']): WebhookTriggerView => ({
  slug: t.slug,
  workflow: t.workflow,
  event: t.trigger.event,
  workspace_id: t.workspaceId,
  secret_env: t.trigger.secretEnv,
  secret_configured: secret !== 'missing',
  secret_weak: secret === 'weak',
  idempotency_key: t.trigger.idempotencyKey,
  dedupe_window_sec: t.trigger.dedupeWindowSec,
  filter: { ...t.trigger.filter },
  ...(t.trigger.signal ? { signal: t.trigger.signal.event, run_field: t.trigger.signal.runField } : {}),
});

export const toDeliveryView = (d: DeliveryRecord): DeliveryView => ({
  id: d.id,
  slug: d.slug,
  workflow: d.workflow,
  outcome: d.outcome,
  status: d.status,
  event: d.event,
  key: d.key,
  run_id: d.runId,
  received_at: d.receivedAt,
});

export const DiscoveryErrorViewSchema = z.object({
  filename: z.string(),
  error: z.string().describe('One `file:line:col: message` line.'),
});

/** `POST /api/webhooks/register`: the triggers now registered for the workflows found, and every problem found. */
export const TriggerRegistrationViewSchema = z.object({
  webhooks: z.array(WebhookTriggerViewSchema),
  errors: z
    .array(DiscoveryErrorViewSchema)
    .optional()
    .describe('Files that could not be used, slugs claimed elsewhere (not registered), secrets too weak (registered, refused at delivery)'),
});
export type TriggerRegistrationView = z.infer<typeof TriggerRegistrationViewSchema>;
