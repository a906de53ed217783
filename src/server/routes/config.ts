import * as z from 'zod';
import { AssistantsPatchSchema, AssistantsViewSchema, assistantsView, configView } from '../../config/index.js';
import { defineRoute } from '../route.js';

const ConfigSchema = AssistantsViewSchema.extend({
  host: z.string(),
  port: z.number().int().nullable(),
  home: z.string(),
  maxConcurrentRuns: z.number().int(),
  memoryBudgetBytes: z
    .number()
    .int()
    .nullable()
    .describe('SVC_MEMORY_BUDGET, else 75% of MemTotal: the memory of all nodes and conversation replies running at once; null where it cannot be read'),
  agentFirstEventTimeoutMs: z.number().int(),
  logLevel: z.string(),
  version: z.string(),
});

export const configRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/config',
    summary: 'Read-only safe subset of the configuration (never an env value or secret)',
    tag: 'config',
    responses: { 200: { description: 'Configuration', schema: ConfigSchema } },
    handle: ({ ctx }) => configView(ctx),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/config/assistants',
    summary: 'Update the assistants: models, endpoints, limits, prices; add, change or remove an acp assistant',
    tag: 'config',
    body: AssistantsPatchSchema,
    errors: [400, 413, 415],
    responses: { 200: { description: "The updated assistant configuration (an acp assistant's env by its names)", schema: AssistantsViewSchema } },
    handle: async ({ ctx, body }) => assistantsView(await ctx.assistants.update(body)),
  }),
];
