import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, projectWithWorkflows, startServer, waitForRun, type Json } from '../helpers/runs.js';

/**
 * A run's message reaches bash nodes as environment variables (never spliced into scripts), and
 * Linux refuses a single one over 128 KiB: the API takes at most 96 KiB and says why.
 */
describe('message size', () => {
  let server: TestServer;
  let cwd: string;
  beforeAll(async () => {
    cwd = await projectWithWorkflows([{ name: 'echo-size', nodes: [{ id: 'count', bash: 'printf %s "$ARGUMENTS" | wc -c' }] }]);
    server = await startServer();
  });
  afterAll(cleanupAll);

  it('runs a 96 KiB message through bash intact', async () => {
    const message = 'x'.repeat(96 * 1024);
    const started = await api<Json>(server, 'POST', '/api/workflows/echo-size/run', { message, cwd });
    expect(started.status).toBe(202);
    const run = await waitForRun(server, started.body.runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.count.output.trim()).toBe(String(96 * 1024));
  });

  it('refuses a larger message with 400 naming the limit, and starts nothing', async () => {
    const before = (await api<Json>(server, 'GET', '/api/workflows/runs')).body.total;
    const refused = await api<Json>(server, 'POST', '/api/workflows/echo-size/run', { message: 'x'.repeat(96 * 1024 + 1), cwd });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_request');
    expect(refused.body.message).toContain('96 KiB');
    expect((await api<Json>(server, 'GET', '/api/workflows/runs')).body.total).toBe(before);
  });
});
