import { z } from 'zod';
import { databaseReport, healthReport } from '../../system/health.js';
import { defineRoute, reply } from '../route.js';

const HealthSchema = z.object({
  status: z.literal('ok'),
  adapter: z.object({ name: z.string(), available: z.boolean(), model: z.string().nullable() }),
  concurrency: z.object({ max: z.number().int(), running: z.number().int(), queued: z.number().int() }),
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
    // The scheduler's own counters: constant time, however many runs are stored.
    handle: ({ ctx }) => healthReport(ctx, ctx.engine.stats),
  }),
  defineRoute({
    method: 'GET',
    path: '/health/db',
    summary: 'Store reachability',
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
