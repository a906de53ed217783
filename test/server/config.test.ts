// GET /api/config and PATCH /api/config/assistants over a real server (issue 2).
import { readMemInfo } from '../../src/processes/index.js';
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/shared/version.js';
import { expectErrorBody, expectErrorResponse } from '../helpers/error-body.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';

const SECRET = 'sk-ant-test-SECRET-VALUE-7f3a9c';

let server: TestServer | undefined;
const homes: string[] = [];
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

function patch(body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  return server!.fetch('/api/config/assistants', { method: 'PATCH', headers, body });
}

describe('GET /api/config', () => {
  it('returns the safe subset: assistants, default, host, port, home, limits, version', async () => {
    server = await startTestServer({ socket: true, env: { SVC_MAX_CONCURRENT_RUNS: '2' } });
    const { status, body } = await server.json('GET', '/api/config');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      defaultAssistant: 'claude',
      assistants: { claude: { model: null, permissions: 'read' }, codex: { model: null, permissions: 'read' } },
      host: '127.0.0.1',
      port: server.port,
      home: server.home,
      maxConcurrentRuns: 2,
      // No SVC_MEMORY_BUDGET: 75% of the machine's MemTotal.
      memoryBudgetBytes: Math.floor(readMemInfo()!.totalBytes * 0.75),
      version: packageVersion(),
    });
  });

  it('never contains an environment value or secret of the server process', async () => {
    const saved = { ...process.env };
    // The server runs in this process, so its environment is this one.
    process.env.ANTHROPIC_API_KEY = SECRET;
    process.env.OPENAI_API_KEY = `${SECRET}-openai`;
    process.env.SVC_WEBHOOK_SECRET_FOR_TEST = `${SECRET}-webhook`;
    try {
      server = await startTestServer({ socket: true, env: { ANTHROPIC_API_KEY: SECRET, CLAUDE_CODE_OAUTH_TOKEN: `${SECRET}-oauth` } });
      const response = await server.fetch('/api/config');
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('ANTHROPIC_API_KEY');
      // Nothing shaped like a copy of the environment either.
      expect(text).not.toContain(process.env.PATH ?? '\u0000');
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(
        [
          'agentFirstEventTimeoutMs',
          'assistants',
          'defaultAssistant',
          'home',
          'host',
          'logLevel',
          'maxConcurrentRuns',
          'memoryBudgetBytes',
          'port',
          'version',
        ].sort(),
      );
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

describe('PATCH /api/config/assistants', () => {
  it('updates a model and answers the new assistant configuration', async () => {
    server = await startTestServer({ socket: true });
    const { status, body } = await server.json('PATCH', '/api/config/assistants', { claude: { model: 'opus' } });
    expect(status).toBe(200);
    expect(body).toEqual({
      defaultAssistant: 'claude',
      assistants: { claude: { model: 'opus', permissions: 'read' }, codex: { model: null, permissions: 'read' } },
    });
    const both = await server.json('PATCH', '/api/config/assistants', { codex: { model: 'gpt-5' }, claude: { model: 'sonnet' } });
    expect(both.body.assistants).toEqual({ claude: { model: 'sonnet', permissions: 'read' }, codex: { model: 'gpt-5', permissions: 'read' } });
    expect((await server.json('GET', '/api/config')).body.assistants).toEqual({
      claude: { model: 'sonnet', permissions: 'read' },
      codex: { model: 'gpt-5', permissions: 'read' },
    });
  });

  it("sets an assistant's permissions for conversations (read out of the box), field by field, and refuses anything but read, edit or full", async () => {
    server = await startTestServer({ socket: true });
    expect((await server.json('GET', '/api/config')).body.assistants.claude.permissions).toBe('read');
    const { status, body } = await server.json('PATCH', '/api/config/assistants', { claude: { permissions: 'edit' } });
    expect(status).toBe(200);
    expect(body.assistants).toEqual({ claude: { model: null, permissions: 'edit' }, codex: { model: null, permissions: 'read' } });
    // Another field leaves it as set.
    expect((await server.json('PATCH', '/api/config/assistants', { claude: { model: 'opus' } })).body.assistants.claude).toEqual({
      model: 'opus',
      permissions: 'edit',
    });
    expect((await server.json('PATCH', '/api/config/assistants', { codex: { permissions: 'full' } })).body.assistants.codex.permissions).toBe('full');
    for (const permissions of ['write', '', null, 'READ']) {
      const refused = await expectErrorResponse(await patch(JSON.stringify({ claude: { permissions } })), 400, 'invalid_request');
      expect(JSON.stringify(refused.details)).toMatch(/claude\.permissions/);
    }
    expect((await server.json('GET', '/api/config')).body.assistants).toEqual({
      claude: { model: 'opus', permissions: 'edit' },
      codex: { model: null, permissions: 'full' },
    });
  });

  it('persists across a restart with the same home', async () => {
    const home = await makeHome();
    homes.push(home);
    server = await startTestServer({ socket: true, home });
    expect((await server.json('PATCH', '/api/config/assistants', { claude: { model: 'opus-persisted' } })).status).toBe(200);
    await server.stop();
    server = await startTestServer({ socket: true, home });
    const { body } = await server.json('GET', '/api/config');
    expect(body.assistants.claude).toEqual({ model: 'opus-persisted', permissions: 'read' });
    expect(body.assistants.codex).toEqual({ model: null, permissions: 'read' });
  });

  it('rejects an unknown assistant with 400 and changes nothing', async () => {
    server = await startTestServer({ socket: true });
    const body = await expectErrorResponse(await patch(JSON.stringify({ gemini: { model: 'x' } })), 400, 'invalid_request');
    expect(body.message).toMatch(/gemini/);
    // A mixed patch is refused as a whole.
    await expectErrorResponse(await patch(JSON.stringify({ claude: { model: 'opus' }, nope: { model: 'x' } })), 400, 'invalid_request');
    expect((await server.json('GET', '/api/config')).body.assistants.claude).toEqual({ model: null, permissions: 'read' });
  });

  it('rejects an empty or missing model with 400 invalid_request and details', async () => {
    server = await startTestServer({ socket: true });
    for (const payload of [{ claude: { model: '' } }, { claude: { model: '   ' } }, { claude: {} }, { claude: { model: 5 } }, { claude: { model: null } }]) {
      const body = await expectErrorResponse(await patch(JSON.stringify(payload)), 400, 'invalid_request');
      expect(Array.isArray(body.details), JSON.stringify(payload)).toBe(true);
      const details = body.details as Array<{ path: string; message: string }>;
      expect(details[0]!.path).toMatch(/claude/);
    }
  });

  it('rejects bodies that are not an object of objects with 400', async () => {
    server = await startTestServer({ socket: true });
    for (const payload of ['[]', '[{"model":"x"}]', '"claude"', '42', 'null', 'true', '{}', '{"claude":"opus"}', '{"claude":{"model":"x","extra":1}}']) {
      await expectErrorResponse(await patch(payload), 400, 'invalid_request');
    }
  });

  it('rejects malformed JSON with 400 invalid_json', async () => {
    server = await startTestServer({ socket: true });
    for (const payload of ['{bad', '{"claude":', "{'claude':{}}", '{"claude":{"model":"x"}}}']) {
      await expectErrorResponse(await patch(payload), 400, 'invalid_json');
    }
  });

  it('rejects a body without a JSON content type with 415 unsupported_media_type', async () => {
    server = await startTestServer({ socket: true });
    const json = JSON.stringify({ claude: { model: 'x' } });
    // A Uint8Array body makes fetch send no Content-Type at all.
    await expectErrorResponse(await patch(new TextEncoder().encode(json), {}), 415, 'unsupported_media_type');
    await expectErrorResponse(await patch(json, { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    await expectErrorResponse(await patch(json, { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'unsupported_media_type');
    // The charset parameter and +json types are fine.
    expect((await patch(json, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('rejects a request with no body with 400', async () => {
    server = await startTestServer({ socket: true });
    const response = await server.fetch('/api/config/assistants', { method: 'PATCH' });
    const body = await response.json();
    expect(response.status).toBe(400);
    expectErrorBody(body, 'invalid_request');
  });
});
