/** What the API shows of webhooks (docs/decisions.md, Webhooks): never a secret, a signature or a payload. */

import { z } from 'zod';
import type { TriggerRecord } from '../catalog/trigger-registry.js';
import { DELIVERY_OUTCOMES, type DeliveryRecord } from './records.js';

export const WebhookTriggerViewSchema = z.object({
  slug: z.string(),
  workflow: z.string(),
  event: z.string(),
  workspace_id: z.string().nullable(),
  secret_env: z.string().describe('the NAME of the variable holding the secret'),
  secret_configured: z.boolean().describe('whether that variable is set (workspace env vars, then the server environment)'),
  idempotency_key: z.string(),
  dedupe_window_sec: z.number().int(),
  filter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
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

export const toTriggerView = (t: TriggerRecord, secretConfigured: boolean): WebhookTriggerView => ({
  slug: t.slug,
  workflow: t.workflow,
  event: t.trigger.event,
  workspace_id: t.workspaceId,
  secret_env: t.trigger.secretEnv,
  secret_configured: secretConfigured,
  idempotency_key: t.trigger.idempotencyKey,
  dedupe_window_sec: t.trigger.dedupeWindowSec,
  filter: { ...t.trigger.filter },
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
