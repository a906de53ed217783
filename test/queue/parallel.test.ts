// The landing queue's trains (`queue: {parallel: N}` in .svc/worktree.yaml), against a real server,
// real git repositories and real verification scripts: the next entries are verified at the same
// time as the head, each built on the one before it, and land in order on exactly the commit they
// tested; a red entry in the middle drops only itself, and the entries behind it are built again
// without it; a server killed mid-train lands each entry once when it starts again.
//
// Concurrency is shown without timing: each verification notes itself in a log and waits until as
// many verifications as the train is long have started. Run one at a time, the first would wait
// for ones that never start, and fail.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, tempDir, waitFor, waitForRun, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { git } from '../helpers/git.js';
import { edit, enqueue, eventsOf, finishedRun, landings, queueOf, queueRepository, testsPassAt } from './fixture.js';

type Target = Parameters<typeof api>[0];

const lines = (file: string) => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};

/** A verify script that notes `$RUN_ID` in `log`, waits (60 s at most) until `together` verifications started, then runs the tests. */
const barrier = (log: string, together: number, after = 'node test.js') =>
  `echo "$RUN_ID $SVC_LAND_COMMIT" >> ${log}; for i in $(seq 600); do [ "$(wc -l < ${log})" -ge ${together} ] && break; sleep 0.1; done; ` +
  `[ "$(wc -l < ${log})" -ge ${together} ] || { echo "only $(wc -l < ${log}) of ${together} verifications started together"; exit 1; }; ${after}`;

const CHANGES = [
  edit('change-a', "sed -i 's/exports.a = () => 1;/exports.a = () => 10;/' math.js"),
  edit('change-b', "sed -i 's/exports.b = () => 2;/exports.b = () => 20;/' math.js"),
  edit('change-c', "sed -i 's/exports.c = () => 3;/exports.c = () => 30;/' math.js"),
  // Red on its own: b returns a string, which the repository's test of b refuses.
  edit('break-b', 'sed -i \'s/exports.b = () => 2;/exports.b = () => "two";/\' math.js'),
];

/**
 * Runs of `workflows` queued while the target's checkout is dirty (the queue pauses at its head), so
 * that once it is clean the whole train is there at once.
 */
async function queuedTogether(server: Target, dir: string, workspaceId: string, workflows: string[]): Promise<string[]> {
  const runs: string[] = [];
  for (const workflow of workflows) runs.push(await finishedRun(server, workspaceId, workflow, `Run ${workflow}`));
  writeFileSync(join(dir, 'README.md'), '# held\n');
  for (const runId of runs) await enqueue(server, runId);
  await waitFor(
    async () => (await queueOf(server, workspaceId))[0]?.state === 'paused',
    20_000,
    () => 'the queue paused at its head',
  );
  git(dir, 'checkout', '--', 'README.md');
  return runs;
}

const settled = (server: Target, workspaceId: string, count: number, timeout = 60_000) =>
  waitFor(
    async () => {
      const entries = await queueOf(server, workspaceId);
      return entries.length === count && entries.every((e: Json) => e.state === 'landed' || e.state === 'needs_rework') ? entries : undefined;
    },
    timeout,
    () => 'every entry landed or needing rework',
  );

const verifyingEvents = async (server: Target, runId: string) => (await eventsOf(server, runId)).filter((e: Json) => e.type === 'queue_verifying');

describe('the landing queue with queue.parallel', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(cleanupAll);

  it('three entries verified at once, each on the ones ahead of it, land in order on the commits they tested', async () => {
    const log = join(await tempDir('svc-train-log-'), 'verifications');
    const { dir, workspaceId } = await queueRepository(server, CHANGES.slice(0, 3), { verify: barrier(log, 3), config: 'queue:\n  parallel: 3\n' });
    const main = git(dir, 'rev-parse', 'main');
    const runs = await queuedTogether(server, dir, workspaceId, ['change-a', 'change-b', 'change-c']);
    const entries = await settled(server, workspaceId, 3);

    expect(entries.map((e: Json) => [e.runId, e.state])).toEqual(runs.map((id) => [id, 'landed']));
    // One train: three verifications, together (else the barrier failed them), one per entry.
    expect(
      lines(log)
        .map((line) => line.split(' ')[0])
        .sort(),
    ).toEqual([...runs].sort());
    // Each built on the one ahead of it; what landed is what its verification tested.
    expect(entries.map((e: Json) => e.base)).toEqual([main, entries[0]!.commit, entries[1]!.commit]);
    expect(
      lines(log)
        .map((line) => line.split(' ')[1])
        .sort(),
    ).toEqual(entries.map((e: Json) => e.commit).sort());
    expect(landings(dir).map((l) => l.commit)).toEqual(entries.map((e: Json) => e.commit));
    expect(git(dir, 'rev-parse', 'main')).toBe(entries[2]!.commit);
    expect(await testsPassAt(dir, 'main')).toBe(true);
    // The stream says what a speculative verification was built on.
    expect((await verifyingEvents(server, runs[0]!)).map((e: Json) => e.ahead)).toEqual([undefined]);
    expect((await verifyingEvents(server, runs[2]!)).map((e: Json) => e.ahead)).toEqual([[runs[0], runs[1]]]);
  });

  it('a red entry in the middle drops only itself: the one behind it is built again without it, and lands', async () => {
    const log = join(await tempDir('svc-train-log-'), 'verifications');
    const { dir, workspaceId } = await queueRepository(server, [CHANGES[0]!, CHANGES[3]!, CHANGES[2]!], {
      verify: barrier(log, 3),
      config: 'queue:\n  parallel: 3\n',
    });
    const [first, red, last] = await queuedTogether(server, dir, workspaceId, ['change-a', 'break-b', 'change-c']);
    const entries = await settled(server, workspaceId, 3);

    expect(entries.map((e: Json) => e.state)).toEqual(['landed', 'needs_rework', 'landed']);
    expect(entries[1]).toMatchObject({ runId: red, reason: expect.stringContaining('verify failed') });
    expect(entries[1]!.outputTail).toContain('b is a function returning a number');
    // The last was tested on first + red, then again on first alone: it landed on that.
    expect((await verifyingEvents(server, last!)).map((e: Json) => e.ahead)).toEqual([[first, red], undefined]);
    expect(entries[2]!.base).toBe(entries[0]!.commit);
    expect(lines(log)).toHaveLength(4);
    expect(landings(dir).map((l) => l.commit)).toEqual([entries[0]!.commit, entries[2]!.commit]);
    expect(git(dir, 'rev-parse', 'main')).toBe(entries[2]!.commit);
    expect(await testsPassAt(dir, 'main')).toBe(true);
    expect(readFileSync(join(dir, 'math.js'), 'utf8')).not.toContain('"two"');
  });

  it('a head that fails sends the whole train back: the others are built again on the target and land', async () => {
    const log = join(await tempDir('svc-train-log-'), 'verifications');
    const { dir, workspaceId } = await queueRepository(server, [CHANGES[3]!, CHANGES[0]!, CHANGES[2]!], {
      verify: barrier(log, 3),
      config: 'queue:\n  parallel: 3\n',
    });
    const main = git(dir, 'rev-parse', 'main');
    const [red, second, third] = await queuedTogether(server, dir, workspaceId, ['break-b', 'change-a', 'change-c']);
    const entries = await settled(server, workspaceId, 3);
    expect(entries.map((e: Json) => e.state)).toEqual(['needs_rework', 'landed', 'landed']);
    expect(entries[0]!.runId).toBe(red);
    expect(entries[1]).toMatchObject({ runId: second, base: main });
    expect(entries[2]).toMatchObject({ runId: third, base: entries[1]!.commit });
    expect(landings(dir).map((l) => l.commit)).toEqual([entries[1]!.commit, entries[2]!.commit]);
    expect(await testsPassAt(dir, 'main')).toBe(true);
  });

  it('queue.parallel must be a whole number from 1 to 8, said with the file, line and column', async () => {
    const { workspaceId } = await queueRepository(server, [CHANGES[0]!], { config: 'queue:\n  parallel: 9\n' });
    const run = await waitForRun(server, await startRun(server, 'change-a', { message: 'change a', workspaceId }));
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^setup_failed: \.svc\/worktree\.yaml:3:13: queue\.parallel: /);
  });
});

describe('a train and kill -9', () => {
  afterEach(async () => {
    await killAllServes();
    await cleanupAll();
  });

  it('a server killed while two entries verify together lands each once, in order, when it starts again', async () => {
    const home = await tempDir('svc-train-home-');
    const log = join(await tempDir('svc-train-log-'), 'verifications');
    let server: ServeProcess = await spawnServe({ home, cwd: home });
    const { dir, workspaceId } = await queueRepository(server, CHANGES.slice(0, 2), {
      verify: `${barrier(log, 2, 'true')}; sleep 3; node test.js`,
      config: 'queue:\n  parallel: 2\n',
    });
    const main = git(dir, 'rev-parse', 'main');
    const runs = await queuedTogether(server, dir, workspaceId, ['change-a', 'change-b']);
    await waitFor(
      () => lines(log).length === 2,
      // A loaded machine: each verification also waits for its place in the memory budget.
      60_000,
      () => 'both verifications started',
    );
    expect((await queueOf(server, workspaceId)).map((e: Json) => e.state)).toEqual(['verifying', 'verifying']);
    await server.stop('SIGKILL');
    expect(git(dir, 'rev-parse', 'main')).toBe(main);

    server = await spawnServe({ home, cwd: home });
    const entries = await settled(server, workspaceId, 2, 45_000);
    expect(entries.map((e: Json) => [e.runId, e.state])).toEqual(runs.map((id) => [id, 'landed']));
    expect(landings(dir).map((l) => l.commit)).toEqual(entries.map((e: Json) => e.commit));
    expect(entries[1]!.base).toBe(entries[0]!.commit);
    expect(await testsPassAt(dir, 'main')).toBe(true);
    for (const runId of runs) expect((await eventsOf(server, runId)).filter((e: Json) => e.type === 'queue_landed')).toHaveLength(1);
  });
});
