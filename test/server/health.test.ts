// GET /health, /api/health and /health/db of the real server, answered in process (issue 2).
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/shared/version.js';
import { FAKE_CLAUDE } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('GET /health', () => {
  it('answers {status:"ok"} as JSON', async () => {
    server = await startTestServer();
    const response = await server.fetch('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /api/health', () => {
  it('reports every member: adapter, concurrency, runningWorkflows, version, uptimeMs', async () => {
    server = await startTestServer({ env: { SVC_CLAUDE_BIN: FAKE_CLAUDE, SVC_MAX_CONCURRENT_RUNS: '3' } });
    const { status, body } = await server.json('GET', '/api/health');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['adapter', 'concurrency', 'runningWorkflows', 'status', 'uptimeMs', 'version']);
    expect(body.status).toBe('ok');
    expect(body.adapter).toEqual({ name: 'claude', available: true, model: null });
    expect(body.concurrency).toEqual({ max: 3, running: 0, queued: 0 });
    expect(body.runningWorkflows).toBe(0);
    expect(body.runningWorkflows).toBe(body.concurrency.running);
    expect(body.version).toBe(packageVersion());
    expect(Number.isInteger(body.uptimeMs)).toBe(true);
    expect(body.uptimeMs).toBeGreaterThanOrEqual(0);
  });

  it('says the adapter is unavailable when SVC_CLAUDE_BIN names a missing binary', async () => {
    server = await startTestServer({ env: { SVC_CLAUDE_BIN: '/nonexistent/bin/claude-missing' } });
    const { status, body } = await server.json('GET', '/api/health');
    expect(status).toBe(200);
    expect(body.adapter).toEqual({ name: 'claude', available: false, model: null });
  });

  it('finds a bare command name on PATH, and not one that is absent', async () => {
    const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
    const path = `${fixtures}:${process.env.PATH ?? ''}`;
    const previous = process.env.PATH;
    process.env.PATH = path;
    try {
      server = await startTestServer({ env: { SVC_CLAUDE_BIN: 'fake-claude' } });
      expect((await server.json('GET', '/api/health')).body.adapter.available).toBe(true);
      await server.stop();
      server = await startTestServer({ env: { SVC_CLAUDE_BIN: 'svc-no-such-agent-on-path' } });
      expect((await server.json('GET', '/api/health')).body.adapter.available).toBe(false);
    } finally {
      process.env.PATH = previous;
    }
  });

  it('shows the configured model of the default assistant', async () => {
    server = await startTestServer({ env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
    expect((await server.json('PATCH', '/api/config/assistants', { claude: { model: 'opus' } })).status).toBe(200);
    const { body } = await server.json('GET', '/api/health');
    expect(body.adapter).toEqual({ name: 'claude', available: true, model: 'opus' });
  });
});

describe('GET /health/db', () => {
  it('answers 200 {status:"ok", database:"connected"} when the store reads and writes', async () => {
    server = await startTestServer();
    const { status, body } = await server.json('GET', '/health/db');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', database: 'connected' });
  });

  it('answers 200 to many checks at once (monitors and dashboards poll concurrently)', async () => {
    server = await startTestServer();
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => server!.json('GET', '/health/db')));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    }
    // The probes clean up after themselves.
    const { readdir } = await import('node:fs/promises');
    expect((await readdir(join(server.home, 'data'))).filter((name) => name.includes('probe'))).toEqual([]);
  });

  it('answers 503 {status:"error", database:"disconnected", message} when the store cannot be written, and recovers', async () => {
    server = await startTestServer();
    // chmod does not stop root (tests may run as root), so the data directory is swapped for a
    // plain file: no write below it can succeed for anyone. It is put back afterwards.
    const data = join(server.home, 'data');
    const moved = join(server.home, 'data.moved');
    await rename(data, moved);
    await writeFile(data, 'not a directory');
    try {
      const { status, body } = await server.json('GET', '/health/db');
      expect(status).toBe(503);
      expect(Object.keys(body).sort()).toEqual(['database', 'message', 'status']);
      expect(body.status).toBe('error');
      expect(body.database).toBe('disconnected');
      expect(body.message).toBeTypeOf('string');
      expect(body.message.length).toBeGreaterThan(0);
      expect(JSON.stringify(body)).not.toMatch(/\n\s+at /);
      // The basic check does not depend on the store.
      expect((await server.json('GET', '/health')).status).toBe(200);
    } finally {
      await rm(data, { force: true });
      await rename(moved, data);
    }
    const after = await server.json('GET', '/health/db');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ status: 'ok', database: 'connected' });
  });
});
