// The landing queue against a real server, real git repositories and a real verification script
// (`verify: node test.js`): entries land one at a time, in order, each commit on the target tested
// before it lands; a conflict or a combination that breaks the tests is not landed and says why;
// a dirty checkout of the target pauses the queue, which resumes by itself once it is clean.
import { readFileSync, writeFileSync } from 'node:fs';
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

const settledEntries = (workspaceId: string, count: number) =>
  waitFor(
    async () => {
      const entries = await queueOf(server, workspaceId);
      return entries.length === count && entries.every((e: Json) => e.state === 'landed' || e.state === 'needs_rework') ? entries : undefined;
    },
    60_000,
    () => 'every entry landed or needing rework',
  );

/** The run's event of this type, once stored (the entry's state is saved just before it). */
const eventOf = (runId: string, type: string) =>
  waitFor(
    async () => (await eventsOf(server, runId)).find((e: Json) => e.type === type),
    10_000,
    () => `${type} on ${runId}`,
  );

describe('the landing queue', () => {
  it('three runs changing different parts of one file land in queue order, each landing commit tested and naming its run once', async () => {
    const { dir, workspaceId } = await queueRepository(server, [
      edit('change-a', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
      edit('change-b', "sed -i 's/exports.b = () => 2;/exports.b = () => 20;/' math.js"),
      edit('change-c', "sed -i 's/exports.c = () => 3;/exports.c = () => 30;/' math.js"),
    ]);
    const runs: string[] = [];
    for (const name of ['change-a', 'change-b', 'change-c']) runs.push(await finishedRun(server, workspaceId, name, `Change ${name.slice(-1)}`));
    const entered: Json[] = [];
    for (const runId of runs) entered.push(await enqueue(server, runId));
    expect(entered.map((e) => e.state)).toEqual(['queued', 'queued', 'queued']);
    expect(entered[0]!.position).toBeLessThan(entered[1]!.position);
    expect(entered[1]!.position).toBeLessThan(entered[2]!.position);

    const entries = await settledEntries(workspaceId, 3);
    expect(entries.map((e: Json) => [e.runId, e.state])).toEqual(runs.map((id) => [id, 'landed']));

    const landed = landings(dir);
    expect(landed.map((l) => l.commit)).toEqual(entries.map((e: Json) => e.commit));
    for (const [i, landing] of landed.entries()) {
      // Each names its run once, and no other run.
      expect(landing.message.split(runs[i]!).length - 1).toBe(1);
      for (const other of runs.filter((id) => id !== runs[i])) expect(landing.message).not.toContain(other);
      expect(await testsPassAt(dir, landing.commit)).toBe(true);
    }
    // The user's checkout (main checked out, clean) moved with the target.
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(landed.at(-1)!.commit);
    expect(readFileSync(join(dir, 'math.js'), 'utf8')).toMatch(/a = \(\) => 10;[\s\S]*b = \(\) => 20;[\s\S]*c = \(\) => 30;/);

    await eventOf(runs[1]!, 'queue_landed');
    const events = (await eventsOf(server, runs[1]!)).map((e: Json) => e.type);
    expect(events.filter((t: string) => t.startsWith('queue_'))).toEqual(['queue_entered', 'queue_verifying', 'queue_landed']);
    expect(events).toContain('run_merged');
    const run = (await api(server, 'GET', `/api/workflows/runs/${runs[1]}`)).body;
    expect(run.merged).toMatchObject({ into: 'main', commit: entries[1]!.commit });
  });

  it('two runs changing the same line: the first lands, the second needs rework naming the file', async () => {
    const { dir, workspaceId } = await queueRepository(server, [
      edit('ten', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
      edit('eleven', "sed -i 's/exports.a = () => 1;/exports.a = () => 11;/' math.js"),
    ]);
    const first = await finishedRun(server, workspaceId, 'ten');
    const second = await finishedRun(server, workspaceId, 'eleven');
    await enqueue(server, first);
    await enqueue(server, second);
    const entries = await settledEntries(workspaceId, 2);
    expect(entries.map((e: Json) => e.state)).toEqual(['landed', 'needs_rework']);
    expect(entries[1]!).toMatchObject({ files: ['math.js'], reason: expect.stringContaining('conflicts with main') });
    expect(git(dir, 'rev-parse', 'main')).toBe(entries[0]!.commit);
    const reworked = await eventOf(second, 'queue_needs_rework');
    expect(reworked).toMatchObject({ runId: second, target: 'main', files: ['math.js'] });

    // Entered again while it needs rework, it goes back to its place and fails again the same way.
    const again = await enqueue(server, second);
    expect(again).toMatchObject({ state: 'queued', position: entries[1]!.position });
    // A landed entry does not enter again.
    const refused = await api(server, 'POST', `/api/workflows/runs/${first}/merge`, { queue: true });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'already_queued', message: expect.stringContaining('landed') });
    // A deleted run leaves no entry behind.
    expect((await api(server, 'DELETE', `/api/workflows/runs/${first}`)).status).toBe(200);
    await waitFor(
      async () => !(await queueOf(server, workspaceId)).some((e: Json) => e.runId === first),
      10_000,
      () => 'the deleted run gone from the queue',
    );
  });

  it('two runs each green that break the tests together: the second is not landed and the target stays green', async () => {
    const { dir, workspaceId } = await queueRepository(server, [
      // Renames b to bee, and its test with it.
      edit('rename-b', "sed -i 's/exports.b = /exports.bee = /' math.js && sed -i 's/m.b()/m.bee()/' tests/b.test.js"),
      // A new caller of b, under its old name.
      edit('call-b', `printf '%s\\n' "const assert = require('node:assert');" "assert.strictEqual(require('../math.js').b() + 1, 3);" > tests/twice.test.js`),
    ]);
    const rename = await finishedRun(server, workspaceId, 'rename-b');
    const caller = await finishedRun(server, workspaceId, 'call-b');
    await enqueue(server, rename);
    await enqueue(server, caller);
    const entries = await settledEntries(workspaceId, 2);
    expect(entries.map((e: Json) => e.state)).toEqual(['landed', 'needs_rework']);
    expect(entries[1]!.reason).toContain('verify failed');
    expect(entries[1]!.outputTail).toMatch(/b is not a function/);
    expect(git(dir, 'rev-parse', 'main')).toBe(entries[0]!.commit);
    expect(await testsPassAt(dir, 'main')).toBe(true);
    const reworked = await eventOf(caller, 'queue_needs_rework');
    expect(reworked.outputTail).toMatch(/b is not a function/);
  });

  it('a dirty checkout of the target pauses the queue with the reason; it resumes by itself once clean', async () => {
    const { dir, workspaceId } = await queueRepository(server, [edit('change-c', "sed -i 's/exports.c = () => 3;/exports.c = () => 30;/' math.js")]);
    const runId = await finishedRun(server, workspaceId, 'change-c');
    const before = git(dir, 'rev-parse', 'main');
    writeFileSync(join(dir, 'README.md'), '# edited, not committed\n');
    await enqueue(server, runId);
    const paused = await waitFor(
      async () => (await queueOf(server, workspaceId)).find((e: Json) => e.state === 'paused'),
      20_000,
      () => 'the entry paused',
    );
    expect(paused.reason).toContain('README.md');
    expect(await eventOf(runId, 'queue_paused')).toMatchObject({ reason: expect.stringContaining('README.md') });
    expect(git(dir, 'rev-parse', 'main')).toBe(before);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# edited, not committed\n');

    git(dir, 'checkout', '--', 'README.md');
    const cleanAt = Date.now();
    const entry = (await settledEntries(workspaceId, 1))[0]!;
    expect(entry.state).toBe('landed');
    expect(Date.now() - cleanAt).toBeLessThan(30_000);
    expect(git(dir, 'rev-parse', 'main')).toBe(entry.commit);
    await eventOf(runId, 'queue_landed');
    expect((await eventsOf(server, runId)).filter((e: Json) => e.type === 'queue_paused')).toHaveLength(1);
  });
});
