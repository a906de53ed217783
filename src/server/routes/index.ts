import * as z from 'zod';
import { buildOpenApiDocument } from '../openapi.js';
import { defineRoute, type RouteSpec } from '../route.js';
import { benchmarkRoutes } from './benchmarks.js';
import { configRoutes } from './config.js';
import { conversationRoutes } from './conversations.js';
import { healthRoutes } from './health.js';
import { runRoutes } from './runs.js';
import { landingRoutes } from './landing.js';
import { streamRoutes } from './streams.js';
import { systemRoutes } from './system.js';
import { scheduleRoutes } from './schedules.js';
import { webhookRoutes } from './webhooks.js';
import { workspaceRoutes } from './workspaces.js';
import { commandRoutes, workflowRoutes } from './workflows.js';
import { workflowTestRoutes } from './workflow-tests.js';

const openApiRoute = defineRoute({
  method: 'GET',
  path: '/api/openapi.json',
  summary: 'OpenAPI 3.0 description of this API',
  tag: 'system',
  responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
  handle: ({ ctx }) => openApiDocument(ctx.version),
});

/** Every route the server answers. Adding a route here is what puts it in the OpenAPI document. */
export const routes: readonly RouteSpec[] = [
  ...healthRoutes,
  ...configRoutes,
  ...systemRoutes,
  ...workflowRoutes,
  ...workflowTestRoutes,
  ...commandRoutes,
  ...runRoutes,
  ...landingRoutes,
  ...benchmarkRoutes,
  ...streamRoutes,
  ...workspaceRoutes,
  ...conversationRoutes,
  ...webhookRoutes,
  ...scheduleRoutes,
  openApiRoute,
];

let cachedDocument: { version: string; document: Record<string, unknown> } | undefined;

export function openApiDocument(version: string): Record<string, unknown> {
  if (cachedDocument?.version !== version) cachedDocument = { version, document: buildOpenApiDocument(routes, version) };
  return cachedDocument.document;
}
