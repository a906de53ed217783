/**
 * Signed webhook deliveries (docs/decisions.md, "Webhooks"): the signature, the secret's strength,
 * what is read from a payload, the dedupe and delivery repositories, and the service the endpoint calls.
 */
export { SIGNATURE_HEADER, signBody, verifySignature } from './signature.js';
export { DELIVERY_OUTCOMES, type DedupeRecord, type DeliveryOutcome, type DeliveryRecord } from './records.js';
export { DELIVERY_HISTORY, openWebhookRepositories, type DeliveryFilter, type WebhookRepositories } from './repository.js';
export { PAYLOAD_FILE, WEBHOOK_BODY_LIMIT, WebhookService, type SecretSource, type SecretStatus, type WebhookAnswer, type WebhookDeps } from './service.js';
export { findTrigger, TriggerRegistry, type TriggerRegistryOptions } from './trigger-registry.js';
export { openTriggerRepository, TRIGGERS_COLLECTION, type TriggerRecord, type TriggerRepository } from './trigger-repository.js';
export { estimateSecretBits, MIN_SECRET_BITS, MIN_SECRET_LENGTH, SECRET_ADVICE, secretWeakness } from './secret-strength.js';
export {
  DeliveryViewSchema,
  toDeliveryView,
  toTriggerView,
  TriggerRegistrationViewSchema,
  WebhookTriggerViewSchema,
  type DeliveryView,
  type TriggerRegistrationView,
  type WebhookTriggerView,
} from './views.js';
export { DEDUPE_COLLECTION } from './repository.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresWebhooks = () => import('./postgres-repository.js');
export const loadPostgresTriggers = () => import('./postgres-trigger-repository.js');
