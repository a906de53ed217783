// A run's own permissions (docs/contract.md, "A run's permissions"): a start may lower
// what the workflow's agents may do, never raise it. Through the real server, against the fake
// claude, which honours the permission flags as the real CLI does.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, type Json, projectWithWorkflows, readJsonLines, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

const READ_FLAGS = ['--permission-mode', 'default'];

/** A node whose agent tries to write `<id>.txt` with its file tool. */
const writer = (id: string, extra: Json = {}) => ({ id, prompt: `write [fake:write=${id}.txt] [fake:reply=${id} done]`, ...extra });

let server: TestServer;
let project: string;
let logs: string;
const callOf = (id: string): Json | undefined => readJsonLines(join(logs, 'claude.jsonl')).find((call) => String(call.stdin).includes(`=${id}.txt]`));

beforeAll(async () => {
  logs = await tempDir('svc-run-perm-logs-');
  project = await projectWithWorkflows([
    { name: 'edits', nodes: [writer('plain'), writer('planner', { permissions: 'read' }), { id: 'script', bash: 'echo hi' }] },
    { name: 'reads', permissions: 'read', nodes: [writer('looker')] },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl'), IS_SANDBOX: '' });
  server = await startServer();
});
afterAll(cleanupAll);

describe("a run's own permissions", () => {
  it("lower every agent node's to at most the run's, and are on the run's record", async () => {
    const run = await waitForRun(server, await startRun(server, 'edits', { message: '', cwd: project, permissions: 'read' }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.permissions).toBe('read');
    // Then its sandbox's settings (`--settings <json>`: docs/decisions.md, "Agents in a sandbox").
    expect(callOf('plain')!.argv.slice(4, 6)).toEqual(READ_FLAGS);
    expect(callOf('plain')!.argv.slice(6, 7)).toEqual(['--settings']);
    expect(run.nodes.plain.permissions).toBe('read');
    expect(run.nodes.planner.permissions).toBe('read');
    // A bash node has no agent to restrict.
    expect(run.nodes.script.permissions).toBeUndefined();
    expect(existsSync(join(project, 'plain.txt'))).toBe(false);
    // The run's graph draws what its agents were allowed, not what the workflow says.
    expect(run.graph.map((node: Json) => [node.id, node.permissions])).toEqual([
      ['plain', 'read'],
      ['planner', 'read'],
      ['script', undefined],
    ]);
  });

  it("equal to the workflow's highest are accepted and change nothing", async () => {
    const run = await waitForRun(server, await startRun(server, 'edits', { message: '', cwd: project, permissions: 'edit' }));
    expect(run.status).toBe('completed');
    expect(run.nodes.plain.permissions).toBe('edit');
    expect(run.nodes.planner.permissions).toBe('read');
  });

  it("above the workflow's are refused with 422 permissions_above_workflow, and no run is made", async () => {
    const before = (await api(server, 'GET', '/api/workflows/runs?workflow=reads')).body.total;
    const answer = await api(server, 'POST', '/api/workflows/reads/run', { message: '', cwd: project, permissions: 'edit' });
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ error: 'permissions_above_workflow', details: { asked: 'edit', allowed: 'read' } });
    expect(answer.body.message).toContain("workflow 'reads'");
    const full = await api(server, 'POST', '/api/workflows/edits/run', { message: '', cwd: project, permissions: 'full' });
    expect(full.status).toBe(422);
    expect((await api(server, 'GET', '/api/workflows/runs?workflow=reads')).body.total).toBe(before);
  });

  it('that are not a permission level are a 400 invalid_request', async () => {
    const answer = await api(server, 'POST', '/api/workflows/edits/run', { message: '', cwd: project, permissions: 'root' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
  });
});
