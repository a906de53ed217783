import * as z from 'zod';
import type { AppContext } from '../../app/context.js';
import { databaseReport, healthReport } from '../../system/index.js';
import { defineRoute, reply } from '../route.js';

const HealthSchema = z.object({
  status: z.literal('ok'),
  adapter: z.object({ name: z.string(), available: z.boolean(), model: z.string().nullable() }),
  concurrency: z.object({
    max: z.number().int(),
    running: z.number().int(),
    queued: z.number().int(),
    // Only with SVC_DATABASE_URL: the file store's answer keeps its members as they were (docs/scaling.md).
    store: z
      .object({
        kind: z.literal('postgres'),
        serverId: z.string().optional().describe('this server, among those sharing the database'),
        servers: z.number().int().optional().describe('servers sharing the database whose lease holds'),
        runningEverywhere: z.number().int().optional().describe("runs executing on every server; `running` is this one's share"),
      })
      .optional()
      .describe('the PostgreSQL store in use, and the work of every server on it'),
  }),
  runningWorkflows: z.number().int(),
  version: z.string(),
  uptimeMs: z.number().int(),
});

export const healthRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    summary: 'Basic liveness check',
    tag: 'health',
    responses: { 200: { description: 'The server is up', schema: z.object({ status: z.literal('ok') }) } },
    handle: () => ({ status: 'ok' }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/health',
    summary: 'Health with adapter, concurrency and running workflows',
    tag: 'health',
    responses: { 200: { description: 'Health report', schema: HealthSchema } },
    // The scheduler's own counters: constant time, however many runs are stored (with a database, one grouped count).
    // The file store's answer takes no step more than the report itself: this is the route load balancers and monitors poll.
    handle: ({ ctx }) => (ctx.database ? withStoreReport(ctx) : healthReport(ctx, ctx.engine.stats)),
  }),
  defineRoute({
    method: 'GET',
    path: '/health/db',
    summary: 'Store reachability (the database too, when one is used)',
    tag: 'health',
    responses: {
      200: { description: 'The store reads and writes', schema: z.object({ status: z.literal('ok'), database: z.literal('connected') }) },
      503: {
        description: 'The store cannot be used',
        schema: z.object({ status: z.literal('error'), database: z.literal('disconnected'), message: z.string() }),
      },
    },
    handle: async ({ ctx }) => {
      const report = await databaseReport(ctx);
      return report.ok ? report.body : reply(503, report.body);
    },
  }),
];

/** The report with a database: `concurrency.store` says what the servers sharing it do. */
async function withStoreReport(ctx: AppContext) {
  const [report, store] = await Promise.all([healthReport(ctx, ctx.engine.stats), storeReport(ctx)]);
  return { ...report, concurrency: { ...report.concurrency, store } };
}

/**
 * With a database: this server among those sharing it, and the runs executing on all of them. The
 * CLI's offline mode answers with the servers and their runs, but names no server: it is none.
 */
async function storeReport(ctx: AppContext) {
  const share = await ctx.engine.share();
  if (!share) return { kind: 'postgres' as const };
  return {
    kind: 'postgres' as const,
    ...(ctx.listening ? { serverId: ctx.engine.serverId } : {}),
    servers: share.servers,
    runningEverywhere: Object.values(share.running).reduce((sum, n) => sum + n, 0),
  };
}
