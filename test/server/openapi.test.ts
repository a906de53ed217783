// GET /api/openapi.json: a valid OpenAPI 3.0 document that lists EVERY route of the route table,
// so a route added later cannot be served without being documented.
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../src/server/openapi.js';
import { defineRoute } from '../../src/server/route.js';
import { routes } from '../../src/server/routes/index.js';
import { packageVersion } from '../../src/shared/version.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Doc = { openapi: string; info: { version: string }; paths: Record<string, Record<string, any>>; components?: any };

/** Redocly's `recommended` rules over the document; each problem as one readable line. */
async function lintProblems(document: unknown) {
  const problems = await lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: 'openapi.json',
    config: await createConfig({ extends: ['recommended'] }),
  });
  const line = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`;
  return {
    errors: problems.filter((p) => p.severity === 'error').map(line),
    warnings: problems.filter((p) => p.severity === 'warn').map(line),
  };
}

let server: TestServer;
let doc: Doc;
beforeAll(async () => {
  server = await startTestServer();
  const response = await server.fetch('/api/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await response.json()) as Doc;
});
afterAll(async () => {
  await server?.stop();
});

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.0.x document (swagger-parser)', async () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    expect(doc.info.version).toBe(packageVersion());
    // validate() dereferences in place: give it a copy so `doc` keeps its $refs for the other tests.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every route of the route table, with its method', () => {
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((route) => !doc.paths[route.path]?.[route.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('documents nothing that is not a route, and no route twice', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    const served = routes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(served).size).toBe(served.length);
    expect(documented.sort()).toEqual([...served].sort());
  });

  it('gives each operation a unique operationId, a summary and documented responses', () => {
    const ids = new Set<string>();
    for (const route of routes) {
      const operation = doc.paths[route.path]![route.method.toLowerCase()];
      expect(operation.operationId, `${route.method} ${route.path}`).toBeTypeOf('string');
      expect(ids.has(operation.operationId), `duplicate operationId ${operation.operationId}`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.summary).toBe(route.summary);
      for (const status of Object.keys(route.responses)) expect(operation.responses[status], `${route.path} ${status}`).toBeDefined();
      for (const status of route.errors ?? []) expect(operation.responses[String(status)]).toBeDefined();
      // Path parameters named in the path are declared.
      for (const [, name] of route.path.matchAll(/\{([^}]+)\}/g)) {
        expect(
          operation.parameters.some((p: any) => p.in === 'path' && p.name === name),
          `${route.path} {${name}}`,
        ).toBe(true);
      }
    }
  });

  it('describes the foundation routes with their schemas', () => {
    expect(doc.paths['/health']!.get.responses['200'].content['application/json'].schema.properties.status).toBeDefined();
    const health = doc.paths['/api/health']!.get.responses['200'].content['application/json'].schema;
    expect(Object.keys(health.properties).sort()).toEqual(['adapter', 'concurrency', 'runningWorkflows', 'status', 'uptimeMs', 'version']);
    expect(doc.paths['/health/db']!.get.responses['503']).toBeDefined();
    const patch = doc.paths['/api/config/assistants']!.patch;
    expect(patch.requestBody.content['application/json'].schema).toBeDefined();
    for (const status of ['400', '413', '415']) expect(patch.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(Object.keys(doc.components.schemas.Error.properties).sort()).toEqual(['details', 'error', 'message']);
  });

  it("passes Redocly's recommended rules without errors", async () => {
    const { errors } = await lintProblems(doc);
    expect(errors).toEqual([]);
  });

  it('says the API has no authentication', () => {
    const document = doc as Doc & { security?: unknown; info: { description?: string } };
    expect(document.security).toEqual([]);
    expect(document.info.description).toMatch(/Authentication: none/);
    // Only a route that names a scheme (the webhook) requires one.
    for (const route of routes) {
      const operation = doc.paths[route.path]![route.method.toLowerCase()];
      expect(operation.security, `${route.method} ${route.path}`).toEqual(route.security ? [{ [route.security]: [] }] : undefined);
    }
  });

  it('defines the webhook signature scheme, and a route that names it requires it', async () => {
    expect(doc.components.securitySchemes.webhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-svc-signature-256' });
    const webhook = defineRoute({
      method: 'POST',
      path: '/webhooks/workflow/{slug}',
      summary: 'A signed webhook delivery',
      tag: 'webhooks',
      params: z.object({ slug: z.string() }),
      rawBody: true,
      security: 'webhookSignature',
      errors: [401, 404],
      responses: { 202: { description: 'Accepted', schema: z.object({ accepted: z.literal(true) }) } },
      handle: () => undefined,
    });
    const document = buildOpenApiDocument([...routes, webhook], packageVersion()) as Doc;
    expect(document.paths['/webhooks/workflow/{slug}']!.post.security).toEqual([{ webhookSignature: [] }]);
    const { errors, warnings } = await lintProblems(document);
    expect(errors).toEqual([]);
    expect(warnings.filter((w) => w.includes('webhookSignature'))).toEqual([]);
  });
});
