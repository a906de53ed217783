import * as z from 'zod';
import { errorStatusesOf, type RouteSpec, type SecuritySchemeName } from './route.js';
import { ErrorBodySchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed or ill-typed input',
  401: 'Missing or wrong signature',
  403: 'Forbidden',
  404: 'Not found',
  408: 'The body did not arrive whole in time; the connection is closed',
  409: 'Conflicts with the current state',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Semantically invalid',
  503: 'Not available',
};

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/**
 * Authentication (docs/contract.md, "Authentication"): none on the API (meant for one developer on
 * loopback); the webhook endpoint alone checks a signature.
 */
const AUTHENTICATION =
  'Authentication: none. Every `/api/` endpoint and `/health` is open; svc binds to 127.0.0.1 by default, and an instance ' +
  'reachable from a network is to be protected by a reverse proxy or firewall outside it. The webhook endpoint is the only ' +
  'authenticated entry: see the `webhookSignature` security scheme.';

const SECURITY_SCHEMES: Record<SecuritySchemeName, JsonSchema> = {
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'x-svc-signature-256',
    description:
      '`sha256=` followed by the lowercase hex HMAC-SHA256 of the exact raw request body, keyed with the secret held in the ' +
      "environment variable named by the trigger's `secret_env`. A missing or wrong signature is 401.",
  },
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
    for (const status of errorStatusesOf(route)) {
      responses[String(status)] ??= { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: ERROR_CONTENT };
    }
    // Even a route that takes no input can answer a client error: Node's parser rejects malformed
    // HTTP before any route runs (400, 408, 431), with the same error body.
    if (!Object.keys(responses).some((status) => status.startsWith('4'))) {
      responses['4XX'] = { description: 'A malformed request (400, 408, 431)', content: ERROR_CONTENT };
    }
    responses['500'] = { description: 'Internal error', content: ERROR_CONTENT };
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[{}]/g, '').replace(/(^|[/_.-])(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      tags: [route.tag],
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      responses,
      ...(route.security ? { security: [{ [route.security]: [] }] } : {}),
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
      description: `Local-first workflow orchestration service for AI coding agents.\n\n${AUTHENTICATION}`,
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:3090', description: 'The default address of `svc serve`' }],
    // No authentication by default; an operation that needs it (the webhook) names its scheme.
    security: [],
    paths,
    components: { schemas: { Error: toSchema(ErrorBodySchema, 'output') }, securitySchemes: SECURITY_SCHEMES },
  };
}
