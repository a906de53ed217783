import * as z from 'zod';
import { MERGE_STRATEGIES } from '../../landing/index.js';
import { QueueEntrySchema, QueueViewSchema } from '../../queue/index.js';
import { PullViewSchema, toPullView } from '../../pulls/index.js';
import { actorOf } from '../../shared/actor.js';
import { defineRoute, reply } from '../route.js';

/**
 * Landing a run's branch (docs/decisions.md, "Landing a run: merge, push, pull request"): merge,
 * push, pull request. The use case is the landing service's (landing/service.ts); these routes
 * parse the request and format the answer.
 */

const RunIdParams = z.object({ runId: z.string().min(1).describe('run id (or an unambiguous prefix)') });

/** A branch or remote name as git takes it; never one that git would read as an option. */
const refName = (what: string) =>
  z
    .string()
    .min(1)
    .max(255)
    .refine((name) => !name.startsWith('-') && !/[\s\0]/.test(name), `${what} must not start with '-' or hold spaces`);

const MergeBodySchema = z
  .strictObject({
    queue: z
      .boolean()
      .optional()
      .describe(
        'true: enter the workspace\'s landing queue for `into` instead, where it lands once verified (docs/contract.md, "Landing queue"); answered 202',
      ),
    into: refName('into').optional().describe("the branch to merge into (default: the workspace's default branch)"),
    strategy: z.enum(MERGE_STRATEGIES).optional().describe('merge (a merge commit, the default), squash (one commit on top of `into`) or fast-forward'),
    message: z
      .string()
      .min(1)
      .max(64 * 1024)
      .optional()
      .describe("the commit message (merge, squash); default from the run's message"),
  })
  // The queue builds each entry on the target's tip as it is then: a merge or a squash, with its own message.
  .refine((body) => !body.queue || body.strategy !== 'fast-forward', { message: 'queue takes strategy merge or squash, not fast-forward', path: ['strategy'] })
  .refine((body) => !body.queue || body.message === undefined, { message: "queue writes its own message (the run's, naming it once)", path: ['message'] });

const MergedSchema = z.object({
  merged: z.literal(true),
  into: z.string(),
  commit: z.string().describe('the commit `into` points at now'),
  strategy: z.enum(MERGE_STRATEGIES),
  alreadyLanded: z
    .boolean()
    .describe('true: the branch was in `into` already (merged, squashed or cherry-picked by hand); nothing was changed, and the run records it as landed'),
});

const QueuedSchema = z.object({ queued: z.literal(true), entry: QueueEntrySchema });

const PushBodySchema = z.strictObject({ remote: refName('remote').optional().describe('a remote name or URL (default origin)') });

const PrBodySchema = z.strictObject({
  title: z.string().min(1).max(1024).optional().describe("default: the run's message's first line"),
  body: z
    .string()
    .max(256 * 1024)
    .optional()
    .describe("default: the last node's output and a summary of the run"),
  base: refName('base').optional().describe("the branch to merge into (default: the workspace's default branch)"),
  draft: z.boolean().optional(),
});

const PrResumeBodySchema = z.strictObject({
  maxFixCycles: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe("the most reactions for this pull request from now on (default: the bound it had, the workflow's max_fix_cycles unless raised before)"),
});

export const landingRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/merge',
    summary: "Merge a run's branch into a branch of its workspace (the user's checkout kept safe)",
    tag: 'runs',
    params: RunIdParams,
    body: MergeBodySchema,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: {
      200: { description: 'Merged, or already landed (alreadyLanded)', schema: MergedSchema },
      202: { description: "With queue: the run's entry in its workspace's landing queue", schema: QueuedSchema },
    },
    handle: async ({ ctx, params, body }) => {
      const { queue, ...merge } = body ?? {};
      if (!queue) return ctx.landing.merge(params.runId, merge);
      const strategy = merge.strategy === 'squash' ? 'squash' : 'merge';
      return reply(202, { queued: true, entry: await ctx.queue.enter(params.runId, { into: merge.into, strategy }) });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces/{id}/queue',
    summary: "A workspace's landing queue: its entries in queue order, with their states",
    tag: 'workspaces',
    params: z.object({ id: z.string().min(1).describe('workspace id, name, or an unambiguous id prefix') }),
    errors: [400, 404],
    responses: { 200: { description: 'The entries, by target then place', schema: QueueViewSchema } },
    handle: ({ ctx, params }) => ctx.queue.list(params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/push',
    summary: "Push a run's branch `svc/<runId>` (git never prompts; credentials are never echoed)",
    tag: 'runs',
    params: RunIdParams,
    body: PushBodySchema,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'Pushed', schema: z.object({ remote: z.string(), branch: z.string() }) } },
    handle: ({ ctx, params, body }) => ctx.landing.push(params.runId, body?.remote),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/pr',
    summary: "Open a pull request for a run's branch with the GitHub CLI (pushed first)",
    tag: 'runs',
    params: RunIdParams,
    body: PrBodySchema,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The pull request gh opened', schema: z.object({ url: z.string() }) } },
    handle: async ({ ctx, params, body }) => {
      const answer = await ctx.landing.pullRequest(params.runId, body ?? {});
      // The pull request opened is followed from now on (docs/decisions.md, "Pull request reactions");
      // opened it is, whatever following says: a failure there is logged, not the answer.
      const { id } = await ctx.engine.get(params.runId);
      await ctx.pulls.follow(id).catch((error: unknown) => ctx.logger.warn('pulls.follow_failed', { runId: id, error: (error as Error).message }));
      return answer;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/pr/follow',
    summary:
      "Follow the run's pull request (the one `svc runs pr` opened, else the open one of its branch): failed checks and requested changes start follow-on runs",
    tag: 'runs',
    params: RunIdParams,
    errors: [404, 409],
    responses: { 200: { description: 'The pull request as followed', schema: PullViewSchema } },
    handle: async ({ ctx, params }) => toPullView(await ctx.pulls.follow((await ctx.engine.get(params.runId)).id)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/pr/resume',
    summary:
      "A person's go-on to a followed pull request that needs one: needs_human cleared, reactions counted afresh (up to maxFixCycles when given), the pull request looked at now",
    tag: 'runs',
    params: RunIdParams,
    body: PrResumeBodySchema,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The pull request as followed from now on', schema: PullViewSchema } },
    handle: async ({ ctx, params, body, headers }) => {
      const { id } = await ctx.engine.get(params.runId);
      return toPullView(await ctx.pulls.resume(id, { maxFixCycles: body?.maxFixCycles, by: actorOf(headers) }));
    },
  }),
];
