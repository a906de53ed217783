import * as z from 'zod';
import { PROJECT_DIR_DESCRIPTION } from '../../catalog/index.js';
import type { AppContext } from '../../app/context.js';
import {
  DELIVERY_OUTCOMES,
  DeliveryViewSchema,
  SIGNATURE_HEADER,
  toDeliveryView,
  toTriggerView,
  TriggerRegistrationViewSchema,
  WEBHOOK_BODY_LIMIT,
  WebhookTriggerViewSchema,
  type TriggerRecord,
} from '../../webhooks/index.js';
import { defineRoute, reply } from '../route.js';
import { GITHUB_EVENT_HEADER, GITHUB_SIGNATURE_HEADER } from '../../pulls/index.js';
import { parseTraceparent } from '../../shared/traceparent.js';
import { ErrorBodySchema } from '../schemas.js';

/**
 * Webhooks (docs/decisions.md, "Webhooks"): the signed public endpoint outside `/api/`, the
 * registered triggers, registering those of a directory, and the delivery history. Answers never
 * carry a secret or a signature.
 */

const SecretRefusedSchema = ErrorBodySchema.extend({
  error: z
    .enum(['webhook_secret_missing', 'webhook_secret_weak'])
    .describe('webhook_secret_missing: the variable named by secret_env is not set; webhook_secret_weak: it holds a value too easy to guess'),
});

const viewsOf = (ctx: AppContext, triggers: TriggerRecord[]) =>
  Promise.all(triggers.map(async (t) => toTriggerView(t, (await ctx.webhooks.secretStatus(t)).state)));

const Accepted = z.object({
  accepted: z.literal(true),
  run_id: z.string().describe('the run created, or the run signalled'),
  signalled: z.string().optional().describe('a signalling trigger (`signal:`): the event delivered to the run named by its `run_field`'),
});
const Skipped = z.union([
  z.object({ skipped: z.literal('duplicate'), run_id: z.string(), first_received_at: z.string() }),
  z.object({ skipped: z.enum(['event_mismatch', 'filter_mismatch']) }),
]);

export const webhookRoutes = [
  defineRoute({
    method: 'POST',
    path: '/webhooks/workflow/{slug}',
    summary: `A signed webhook delivery: ${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the raw body>; at most 256 KiB`,
    tag: 'webhooks',
    params: z.object({ slug: z.string().describe('the trigger slug') }),
    rawBody: true,
    bodyLimit: WEBHOOK_BODY_LIMIT,
    security: 'webhookSignature',
    errors: [400, 401, 404, 409, 413],
    responses: {
      202: { description: 'Accepted: a run was created, or a waiting run signalled (a trigger with `signal:`)', schema: Accepted },
      200: { description: 'Skipped: a duplicate, or the event or filter does not match', schema: Skipped },
      503: { description: "The trigger's secret is not set, or is too easy to guess to sign with; no run is started", schema: SecretRefusedSchema },
    },
    handle: async ({ ctx, params, raw, headers }) => {
      // A `traceparent` header continues the sender's trace (docs/decisions.md, "Traces"); a malformed one is ignored, never refused.
      const answer = await ctx.webhooks.receive(
        params.slug,
        raw ?? new Uint8Array(),
        headers.get(SIGNATURE_HEADER),
        parseTraceparent(headers.get('traceparent')),
      );
      // A refusal is answered as any DomainError is: by the dispatcher, with the one error body.
      if ('refused' in answer) throw answer.refused;
      return reply(answer.status, answer.body);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/webhooks/github',
    summary: `GitHub's deliveries about followed pull requests (check_suite, check_run, pull_request, pull_request_review): ${GITHUB_SIGNATURE_HEADER} under SVC_GITHUB_WEBHOOK_SECRET; at most 256 KiB. The pull requests named are looked at now`,
    tag: 'webhooks',
    rawBody: true,
    bodyLimit: WEBHOOK_BODY_LIMIT,
    security: 'webhookSignature',
    errors: [400, 401, 413],
    responses: {
      202: {
        description: 'Accepted: the runs whose pull requests are looked at now (none: no followed pull request is named)',
        schema: z.object({ runs: z.array(z.string()) }),
      },
      200: { description: 'Skipped: an event svc does not follow pull requests by (`ping`, …)', schema: z.object({ skipped: z.string() }) },
      503: { description: 'SVC_GITHUB_WEBHOOK_SECRET is not set, or is too easy to guess', schema: SecretRefusedSchema },
    },
    handle: async ({ ctx, raw, headers }) => {
      const answer = await ctx.pulls.delivered(
        raw ?? new Uint8Array(),
        headers.get(GITHUB_SIGNATURE_HEADER),
        headers.get(GITHUB_EVENT_HEADER),
        headers.get('content-type'),
      );
      return 'skipped' in answer ? reply(200, answer) : reply(202, answer);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/webhooks',
    summary: 'The registered webhook triggers, and whether the secret of each is configured (never its value)',
    tag: 'webhooks',
    responses: { 200: { description: 'Triggers by slug', schema: z.object({ webhooks: z.array(WebhookTriggerViewSchema) }) } },
    handle: async ({ ctx }) => ({ webhooks: await viewsOf(ctx, await ctx.workflows.triggers()) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/webhooks/register',
    summary:
      "Register the webhook triggers of the workflows under cwd (and the registered workspaces); without cwd, the server's own directory and workspaces, which it also registers as their workflow files change. A listing (GET) never registers",
    tag: 'webhooks',
    query: z.object({ cwd: z.string().optional().describe(PROJECT_DIR_DESCRIPTION) }),
    errors: [400, 415],
    responses: { 200: { description: 'The triggers now registered for the workflows found, and every problem found', schema: TriggerRegistrationViewSchema } },
    handle: async ({ ctx, query }) => {
      const { triggers, errors } = await ctx.workflows.registerTriggers(query.cwd);
      return { webhooks: await viewsOf(ctx, triggers), ...(errors.length > 0 ? { errors } : {}) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/webhooks/deliveries',
    summary: 'Recent webhook deliveries, newest first (a bounded history): why each was accepted, skipped or refused',
    tag: 'webhooks',
    query: z.object({
      slug: z.string().optional(),
      outcome: z.enum(DELIVERY_OUTCOMES).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
    errors: [400],
    responses: { 200: { description: 'Deliveries', schema: z.object({ deliveries: z.array(DeliveryViewSchema) }) } },
    handle: async ({ ctx, query }) => ({ deliveries: (await ctx.webhooks.listDeliveries(query)).map(toDeliveryView) }),
  }),
];
