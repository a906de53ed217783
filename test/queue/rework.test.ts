// `rework: agent` (docs/contract.md, "Landing queue"): an entry that conflicts gets a follow-on run
// of the bundled `rework` workflow, whose (fake) agent merges the target in and resolves the
// conflict; the rework run then takes the entry's place in the queue, passes verification and
// lands. At most `max_rework` rework runs, then a person; a workflow's own `rework:` wins over
// .svc/worktree.yaml's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startServer, waitFor, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { edit, enqueue, eventsOf, finishedRun, landings, queueOf, queueRepository, testsPassAt } from './fixture.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(cleanupAll);

const IDENTITY = '-c user.name=agent -c user.email=agent@example.com';
/** What the fake agent does when a prompt holds this message: merge main, keep this side's line with a new value, commit. */
const RESOLVES = `Set a to eleven [fake:bash=git ${IDENTITY} merge -q main; git checkout --ours math.js; sed -i 's/=> 11;/=> 21;/' math.js; git add -A; git ${IDENTITY} commit -qm resolved]`;

const settled = (workspaceId: string, count: number) =>
  waitFor(
    async () => {
      const entries = await queueOf(server, workspaceId);
      const done = entries.length === count && entries.every((e: Json) => (e.state === 'landed' || e.state === 'needs_rework') && !e.awaitingRework);
      return done ? entries : undefined;
    },
    90_000,
    () => `${count} entries settled`,
  );

describe('rework: agent', () => {
  it('a conflict goes to a rework run; its resolution enters the queue at the place of the entry, passes and lands', async () => {
    const { dir, workspaceId } = await queueRepository(
      server,
      [
        edit('ten', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
        edit('eleven', "sed -i 's/exports.a = () => 1;/exports.a = () => 11;/' math.js"),
      ],
      { config: 'rework: agent\n' },
    );
    const first = await finishedRun(server, workspaceId, 'ten', 'Set a to ten');
    const second = await finishedRun(server, workspaceId, 'eleven', RESOLVES);
    await enqueue(server, first);
    const entered = await enqueue(server, second);
    const entries = await settled(workspaceId, 3);

    const original = entries.find((e: Json) => e.runId === second)!;
    expect(original).toMatchObject({ state: 'needs_rework', files: ['math.js'], rework: { mode: 'agent', max: 2 }, reworkRunId: expect.any(String) });
    const reworked = entries.find((e: Json) => e.runId === original.reworkRunId)!;
    expect(reworked).toMatchObject({ state: 'landed', reworkOf: second, reworks: 1, position: entered.position });
    // In queue order, the rework run stands where the entry it reworks stood (after it, entered later).
    expect(entries.map((e: Json) => e.runId)).toEqual([first, second, reworked.runId]);

    const run = (await api(server, 'GET', `/api/workflows/runs/${reworked.runId}`)).body;
    expect(run).toMatchObject({ workflow: 'rework', fromRunId: second, status: 'completed' });
    expect(run.message).toContain('conflicts with main in: math.js');
    expect(run.message).toContain('Set a to ten');
    const needsRework = (await eventsOf(server, second)).find((e: Json) => e.type === 'queue_needs_rework');
    expect(needsRework).toMatchObject({ files: ['math.js'], reworkRunId: reworked.runId });

    expect(git(dir, 'rev-parse', 'main')).toBe(reworked.commit);
    expect(readFileSync(join(dir, 'math.js'), 'utf8')).toContain('exports.a = () => 21;');
    expect(await testsPassAt(dir, 'main')).toBe(true);
    expect(landings(dir).map((l) => l.commit)).toEqual([entries.find((e: Json) => e.runId === first)!.commit, reworked.commit]);
    // The original cannot enter again: its rework run took its place, and the same changes land once.
    const again = await api(server, 'POST', `/api/workflows/runs/${second}/merge`, { queue: true });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_queued' });
    expect(again.body.message).toContain(`rework run ${reworked.runId} took its place`);
  }, 120_000);

  it('at most max_rework rework runs, then a person; a workflow saying rework: person wins over worktree.yaml', async () => {
    const { workspaceId } = await queueRepository(
      server,
      [
        edit('ten', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
        edit('twelve', "sed -i 's/exports.a = () => 1;/exports.a = () => 12;/' math.js"),
        { ...edit('thirteen', "sed -i 's/exports.a = () => 1;/exports.a = () => 13;/' math.js"), rework: 'person' },
      ],
      { config: 'rework: agent\nmax_rework: 1\n' },
    );
    const first = await finishedRun(server, workspaceId, 'ten');
    // The fake agent only answers: its rework changes nothing, and conflicts again.
    const unresolved = await finishedRun(server, workspaceId, 'twelve', 'Set a to twelve');
    const byPerson = await finishedRun(server, workspaceId, 'thirteen', 'Set a to thirteen');
    for (const runId of [first, unresolved, byPerson]) await enqueue(server, runId);
    const entries = await settled(workspaceId, 4);

    const original = entries.find((e: Json) => e.runId === unresolved)!;
    const reworkEntry = entries.find((e: Json) => e.runId === original.reworkRunId);
    expect(reworkEntry).toMatchObject({ state: 'needs_rework', reworks: 1, reworkOf: unresolved, reworkRunId: null, files: ['math.js'] });
    expect(entries.find((e: Json) => e.runId === byPerson)).toMatchObject({ state: 'needs_rework', rework: { mode: 'person' }, reworkRunId: null });
    const reworkRuns = (await api(server, 'GET', '/api/workflows/runs?workflow=rework&limit=50')).body.runs.filter((r: Json) => r.workspaceId === workspaceId);
    expect(reworkRuns).toHaveLength(1);
  }, 120_000);
});
