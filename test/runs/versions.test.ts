// Versions (docs/decisions.md, "Versions"): a run freezes the definition it started with and its
// hash; an edit between two runs makes two versions (the grouped benchmark, the runs filter); an
// approval after an edit continues with the frozen definition; a resume takes the current one and
// records its hash too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { api, cleanupAll, getRun, type Json, projectWithWorkflows, startRun, startServer, waitForRun, waitForStatus, writeWorkflows } from '../helpers/runs.js';

let server: TestServer;
let project: string;

const HASH = /^[0-9a-f]{64}$/;

beforeAll(async () => {
  project = await projectWithWorkflows([]);
  server = await startServer();
});
afterAll(cleanupAll);

const run = async (workflow: string, body: Json = {}) => waitForRun(server, await startRun(server, workflow, { message: 'go', cwd: project, ...body }));

describe('a definition edited between two runs', () => {
  it('gives two hashes; the benchmark by version has both, newest first; the runs filter and definitionChanged tell them apart', async () => {
    await writeWorkflows(project, [{ name: 'edited', nodes: [{ id: 'work', bash: 'echo one' }] }]);
    const first = await run('edited');
    await writeWorkflows(project, [{ name: 'edited', nodes: [{ id: 'work', bash: 'echo two; echo more' }] }]);
    const second = await run('edited');
    expect(first.status).toBe('completed');
    expect(second.nodes.work.output).toBe('two\nmore');
    expect(first.definitionHash).toMatch(HASH);
    expect(second.definitionHash).toMatch(HASH);
    expect(second.definitionHash).not.toBe(first.definitionHash);
    expect(first.definitionHashes).toEqual([first.definitionHash]);
    // Before the edit the first run's definition was the file's; now it is not, and the second's is.
    expect(first.definitionChanged).toBe(false);
    expect((await getRun(server, first.id)).definitionChanged).toBe(true);
    expect(second.definitionChanged).toBe(false);

    const { status, body } = await api(server, 'GET', '/api/runs/benchmark?workflow=edited&group=version');
    expect(status).toBe(200);
    expect(body.versions.map((v: Json) => v.definitionHash)).toEqual([second.definitionHash, first.definitionHash]);
    for (const version of body.versions) expect(version).toMatchObject({ runs: 1, usd: 0, firstRunAt: expect.any(String) });
    expect(body.versions[1].firstRunAt).toBe(first.createdAt);
    const durationOf = (r: Json) => Date.parse(r.finishedAt) - Date.parse(r.startedAt);
    expect(body.versions[0]).toMatchObject({ p50Ms: durationOf(second), p95Ms: durationOf(second) });

    const sameVersion = await api(server, 'GET', `/api/workflows/runs?definitionHash=${first.definitionHash}`);
    expect(sameVersion.body.runs.map((r: Json) => r.id)).toEqual([first.id]);
    // The plain benchmark still measures both.
    expect((await api(server, 'GET', '/api/runs/benchmark?workflow=edited')).body.summary.runs).toBe(2);
  });

  it('group=version takes the benchmark’s limit and since rules; a bad group is 400', async () => {
    const limited = await api(server, 'GET', '/api/runs/benchmark?workflow=edited&group=version&limit=1');
    expect(limited.body.versions).toHaveLength(1);
    expect((await api(server, 'GET', '/api/runs/benchmark?workflow=edited&group=version&limit=0')).body.error).toBe('invalid_limit');
    expect((await api(server, 'GET', '/api/runs/benchmark?workflow=edited&group=version&since=tomorrow')).body.error).toBe('invalid_since');
    const bad = await api(server, 'GET', '/api/runs/benchmark?workflow=edited&group=node');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_request');
  });
});

describe('continuing a paused run after an edit', () => {
  it('an approval continues with the frozen definition, and the detail says the workflow changed', async () => {
    await writeWorkflows(project, [
      {
        name: 'gated-edit',
        nodes: [
          { id: 'gate', approval: { message: 'Go on?' } },
          { id: 'after', bash: 'echo frozen', depends_on: ['gate'] },
        ],
      },
    ]);
    const id = await startRun(server, 'gated-edit', { message: 'go', cwd: project });
    const paused = await waitForStatus(server, id, 'paused');
    expect(paused.definitionChanged).toBe(false);
    await writeWorkflows(project, [
      {
        name: 'gated-edit',
        nodes: [
          { id: 'gate', approval: { message: 'Go on?' } },
          { id: 'after', bash: 'echo edited', depends_on: ['gate'] },
          { id: 'added', bash: 'echo added', depends_on: ['after'] },
        ],
      },
    ]);
    expect((await getRun(server, id)).definitionChanged).toBe(true);
    expect((await api(server, 'POST', `/api/workflows/runs/${id}/approve`, {})).status).toBe(200);
    const done = await waitForStatus(server, id, 'completed');
    expect(done.nodes.after.output).toBe('frozen');
    expect(Object.keys(done.nodes)).toEqual(['gate', 'after']);
    expect(done.definitionHashes).toEqual([paused.definitionHash]);
    expect(done.definitionChanged).toBe(true);
  });

  it('a resume takes the current definition and records its hash: the detail lists both', async () => {
    await writeWorkflows(project, [{ name: 'fixable', nodes: [{ id: 'work', bash: 'exit 3' }] }]);
    const failed = await run('fixable', { conversationId: 'conv-versions' });
    expect(failed.status).toBe('failed');
    await writeWorkflows(project, [{ name: 'fixable', nodes: [{ id: 'work', bash: 'echo fixed' }] }]);
    expect((await api(server, 'POST', `/api/workflows/runs/${failed.id}/resume`)).status).toBe(200);
    const again = await startRun(server, 'fixable', { message: 'go', cwd: project, conversationId: 'conv-versions' });
    expect(again).toBe(failed.id);
    const done = await waitForStatus(server, failed.id, 'completed');
    expect(done.nodes.work.output).toBe('fixed');
    expect(done.definitionHashes).toEqual([failed.definitionHash, done.definitionHash]);
    expect(done.definitionHash).not.toBe(failed.definitionHash);
    expect(done.definitionChanged).toBe(false);
  });
});
