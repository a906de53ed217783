import { z } from 'zod';
import type { RouteSpec } from './route.js';
import { ErrorBodySchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed or ill-typed input',
  401: 'Missing or wrong signature',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Semantically invalid',
  503: 'Not available',
};

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Path and query schemas become OpenAPI parameters, one per property. */
function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/**
 * Builds the OpenAPI 3.0 document from the route table: the same zod schemas that validate
 * requests describe them here, so a route cannot be served without being documented.
 */
export function buildOpenApiDocument(routes: readonly RouteSpec[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      const contentType = response.contentType ?? 'application/json';
      responses[status] = {
        description: response.description,
        ...(response.schema || contentType !== 'application/json'
          ? { content: { [contentType]: { schema: response.schema ? toSchema(response.schema, 'output') : { type: 'string' } } } }
          : {}),
      };
    }
    for (const status of route.errors ?? []) {
      responses[String(status)] ??= {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    responses['500'] = { description: 'Internal error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/(^|[/_.-])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      tags: [route.tag],
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      responses,
    };
    if (route.body || route.rawBody) {
      operation.requestBody = {
        required: !route.bodyOptional,
        content: { 'application/json': { schema: route.body ? toSchema(route.body, 'input') : { type: 'object' } } },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'svc',
      version,
      description: 'Local-first workflow orchestration service for AI coding agents. No authentication: bind to loopback.',
    },
    servers: [{ url: 'http://127.0.0.1:3090' }],
    paths,
    components: { schemas: { Error: toSchema(ErrorBodySchema, 'output') } },
  };
}
