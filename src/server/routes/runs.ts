import * as z from 'zod';
import { checkProjectDir } from '../../catalog/index.js';
import { parseTimeBound } from '../../benchmarks/index.js';
import {
  changeRange,
  toRunView,
  NodeLogPageSchema,
  ResumeRunBodySchema,
  RunDetailSchema,
  RunStatusListSchema,
  RunStatusSchema,
  RunViewSchema,
  SignalBodySchema,
  StartRunBodySchema,
} from '../../runs/index.js';
import { RunDiffSchema } from '../../workspaces/index.js';
import { PullViewSchema } from '../../pulls/index.js';
import { defineRoute, reply } from '../route.js';
import { actorOf } from '../../shared/actor.js';
import { fromAnotherMachine } from '../http-input.js';

const RunIdParams = z.object({ runId: z.string().min(1).describe('run id (or an unambiguous prefix)') });

/** The API's run shapes are the domain's (runs/model/schemas.ts). */
const RunSchema = RunViewSchema;

const ListQuery = z.object({
  status: RunStatusListSchema.optional().describe('comma-separated run states'),
  workflow: z.string().optional(),
  conversationId: z.string().optional(),
  fromRunId: z.string().min(1).optional().describe('the follow-on runs of this run (its exact id)'),
  definitionHash: z.string().min(1).optional().describe("the runs of this version of their workflow (a run's `definitionHash`)"),
  since: z.string().optional().describe('runs created since: `<n>h|d|w` or an ISO date (as the dashboard query)'),
  until: z.string().optional().describe('runs created until: `<n>h|d|w` ago or an ISO date'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

const WorkflowParams = z.object({ name: z.string().min(1) });

/** The run detail, with its followed pull request (docs/decisions.md, "Pull request reactions"). */
const RunDetailWithPullSchema = RunDetailSchema.extend({
  pr: PullViewSchema.optional().describe("the run's pull request as svc follows it: its state, checks and reactions; absent when none is followed"),
  needsHuman: z.literal(true).optional().describe('svc stopped reacting to the pull request by itself: a person decides (`needsHumanReason`)'),
  needsHumanReason: z.string().optional(),
});

const operation = (op: 'cancel' | 'abandon', summary: string) =>
  defineRoute({
    method: 'POST',
    path: `/api/workflows/runs/{runId}/${op}`,
    summary,
    tag: 'runs',
    params: RunIdParams,
    errors: [400, 404, 409],
    responses: { 200: { description: 'The run after the operation', schema: RunSchema } },
    handle: async ({ ctx, params }) => toRunView(await ctx.engine[op](params.runId)),
  });

export const runRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/workflows/{name}/run',
    summary: 'Start a run (or continue a resumable one of the same conversation)',
    tag: 'runs',
    params: WorkflowParams,
    body: StartRunBodySchema,
    errors: [400, 404, 409, 413, 415, 422],
    responses: {
      202: {
        description: "Accepted: the run's id and state, and where it runs",
        schema: z.object({
          runId: z.string(),
          status: RunStatusSchema,
          workspaceId: z.string().nullable().describe('the workspace the run is on; null: it runs in place in cwd'),
          cwd: z.string().describe("the run's working directory: its worktree, or (no workspace) the directory itself"),
          branch: z.string().nullable().describe("the worktree's branch `svc/<runId>`; null in place, or until a server places the run (shared database)"),
        }),
      },
    },
    handle: async ({ ctx, params, body, headers, event }) => {
      // Values chosen by an agent (svc mcp) or another machine are outside values (bash-sandbox.ts).
      const outside = actorOf(headers) === 'mcp' ? 'mcp' : fromAnotherMachine(event) ? 'remote' : undefined;
      const run = await ctx.engine.start({
        ...(outside ? { outside } : {}),
        workflow: params.name,
        message: body.message,
        conversationId: body.conversationId ?? null,
        cwd: body.cwd === undefined ? undefined : checkProjectDir(body.cwd),
        trigger: body.trigger ?? 'api',
        // Named as the user names it (an id, a name or a unique prefix); the run keeps the full id.
        workspaceId: body.workspaceId ? await ctx.workspaces.idOf(body.workspaceId) : null,
        ...(body.inPlace ? { inPlace: true } : {}),
        ...(body.fromRunId ? { fromRunId: body.fromRunId } : {}),
        ...(body.maxCostUsd !== undefined ? { maxCostUsd: body.maxCostUsd } : {}),
        ...(body.permissions ? { permissions: body.permissions } : {}),
      });
      return reply(202, { runId: run.id, status: run.status, workspaceId: run.workspaceId, cwd: run.cwd, branch: run.branch ?? null });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/runs',
    summary: 'List runs, newest first',
    tag: 'runs',
    query: ListQuery,
    errors: [400],
    responses: { 200: { description: 'Runs', schema: z.object({ runs: z.array(RunSchema), total: z.number().int() }) } },
    handle: async ({ ctx, query }) => {
      const { since, until, ...filter } = query;
      const now = Date.now();
      const { runs, total } = await ctx.engine.list({
        ...filter,
        sinceMs: parseTimeBound(since, now),
        untilMs: parseTimeBound(until, now, 'invalid_until', 'until'),
      });
      return { runs: runs.map((run) => toRunView(run)), total };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/runs/by-worker/{platformId}',
    summary: 'Find a run by its worker conversation id',
    tag: 'runs',
    params: z.object({ platformId: z.string().min(1) }),
    errors: [404],
    responses: { 200: { description: 'The run', schema: RunSchema } },
    handle: async ({ ctx, params }) => toRunView(await ctx.engine.byWorker(params.platformId)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/runs/{runId}',
    summary: 'Run details with events',
    tag: 'runs',
    params: RunIdParams,
    errors: [400, 404],
    responses: { 200: { description: 'The run and its events', schema: RunDetailWithPullSchema } },
    handle: async ({ ctx, params }) => {
      const run = await ctx.engine.get(params.runId);
      const location = await ctx.engine.location(run.id);
      const definitionChanged = await ctx.engine.definitionChanged(run);
      return {
        ...toRunView(run, { detail: true, events: await ctx.engine.events(run.id), definitionChanged, ...(location ? { location } : {}) }),
        ...(await ctx.pulls.detail(run.id)),
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/runs/{runId}/diff',
    summary: "What a run changed on its branch, or one node's commits (`?node=`): files and the patch",
    tag: 'runs',
    params: RunIdParams,
    query: z.object({ node: z.string().min(1).optional().describe('only the commits of this node') }),
    errors: [400, 404, 409],
    responses: { 200: { description: 'The files changed and the patch (cut at 1 MiB)', schema: RunDiffSchema } },
    handle: async ({ ctx, params, query }) => {
      const run = await ctx.engine.get(params.runId);
      return ctx.workspaces.runDiff(run.id, changeRange(run, query.node));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/runs/{runId}/nodes/{nodeId}/log',
    summary: "A node's log (`<node>.log`: what it printed, stdout and stderr as they came), a page of at most 1 MiB from byte `offset`",
    tag: 'runs',
    params: RunIdParams.extend({ nodeId: z.string().min(1) }),
    query: z.object({
      offset: z.coerce.number().int().min(0).default(0).describe("the byte to start at: 0, or the previous page's `nextOffset`"),
    }),
    errors: [400, 404],
    responses: { 200: { description: 'A page of the log, and the state of its node', schema: NodeLogPageSchema } },
    handle: ({ ctx, params, query }) => ctx.engine.nodeLog(params.runId, params.nodeId, query.offset),
  }),
  operation('cancel', 'Cancel a pending or running run (its processes get SIGTERM, then SIGKILL); of a failed run, call off its auto-resume'),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/resume',
    summary: 'Mark a failed run to be continued by the next start of its workflow in its conversation (`maxCostUsd` replaces its spend cap)',
    tag: 'runs',
    params: RunIdParams,
    body: ResumeRunBodySchema,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The run after the operation', schema: RunSchema } },
    handle: async ({ ctx, params, body }) =>
      toRunView(await ctx.engine.resume(params.runId, body?.maxCostUsd !== undefined ? { maxCostUsd: body.maxCostUsd } : {})),
  }),
  operation('abandon', 'Abandon a non-terminal run; of a failed run, call off its auto-resume'),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/approve',
    summary: 'Approve a paused run (the waiting gate completes with the comment as its output)',
    tag: 'runs',
    params: RunIdParams,
    body: z.strictObject({
      comment: z
        .string()
        .max(64 * 1024)
        .optional(),
    }),
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The run', schema: RunSchema } },
    handle: async ({ ctx, params, body }) => toRunView(await ctx.engine.approve(params.runId, body?.comment)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/reject',
    summary: 'Reject a paused run (it ends cancelled, the reason recorded)',
    tag: 'runs',
    params: RunIdParams,
    body: z.strictObject({
      reason: z
        .string()
        .max(64 * 1024)
        .optional(),
    }),
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The run', schema: RunSchema } },
    handle: async ({ ctx, params, body }) => toRunView(await ctx.engine.reject(params.runId, body?.reason)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/runs/{runId}/signal',
    summary: 'Deliver an event to a waiting run: the node waiting for it completes with the payload as its output ($<id>.output), and the run goes on',
    tag: 'runs',
    params: RunIdParams,
    body: SignalBodySchema,
    errors: [400, 404, 409, 413, 415],
    responses: { 200: { description: 'The run', schema: RunSchema } },
    handle: async ({ ctx, params, body }) => toRunView(await ctx.engine.signal(params.runId, body.event, body.payload)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/workflows/runs/{runId}',
    summary: 'Delete a terminal run with its events and artifacts',
    tag: 'runs',
    params: RunIdParams,
    errors: [400, 404, 409],
    responses: { 200: { description: 'Deleted', schema: z.object({ deleted: z.literal(true), runId: z.string() }) } },
    handle: async ({ ctx, params }) => ({ deleted: true, runId: (await ctx.engine.delete(params.runId)).id }),
  }),
];
