import * as z from 'zod';
import { AssistantsConfigSchema, AssistantsPatchSchema, configView } from '../../config/index.js';
import { defineRoute } from '../route.js';

const ConfigSchema = AssistantsConfigSchema.extend({
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
    summary: 'Update assistant models',
    tag: 'config',
    body: AssistantsPatchSchema,
    errors: [400, 413, 415],
    responses: { 200: { description: 'The updated assistant configuration', schema: AssistantsConfigSchema } },
    handle: ({ ctx, body }) => ctx.assistants.update(body),
  }),
];
