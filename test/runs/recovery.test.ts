// Crash and restart with the real CLI server (`node bin/svc.mjs serve`, built by `npm test`'s
// pretest): a run left `running` by a kill -9 becomes `failed`/`interrupted` and can be resumed;
// `paused` survives a restart; `pending` is queued again. Graceful shutdown interrupts runs and
// leaves no process behind.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  api,
  cleanupAll,
  eventTypes,
  getRun,
  type Json,
  killGroupQuietly,
  liveGroupMembers,
  projectWithWorkflows,
  readPidFile,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForDeath,
  waitForStatus,
} from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';

const groups: number[] = [];

/** `sleeper` sleeps (in the background, waited on) until the file `fast` exists in the project. */
const SLEEPER = [
  'echo $$ > "$ARTIFACTS_DIR/leader.pid"',
  'if [ -e "$WORKSPACE_DIR/fast" ]; then echo quick; exit 0; fi',
  'sleep 300 & echo $! > "$ARTIFACTS_DIR/sleep.pid"; wait',
].join('\n');

/** A fresh project per test: the `fast` switch file must not leak from one test to the next. */
const makeCrashProject = () =>
  projectWithWorkflows([
    {
      name: 'crashable',
      nodes: [
        { id: 'once', bash: 'echo ran >> "$ARTIFACTS_DIR/once-count.txt"; echo once-output' },
        { id: 'sleeper', bash: SLEEPER, depends_on: ['once'] },
        { id: 'final', bash: 'echo "final after $once.output"', depends_on: ['sleeper'] },
      ],
    },
    {
      name: 'gated',
      nodes: [
        { id: 'gate', approval: { message: 'Continue after the restart?' } },
        { id: 'after', bash: `printf 'approved: %s\\n' $gate.output`, depends_on: ['gate'] },
      ],
    },
    { name: 'quick', nodes: [{ id: 'one', bash: 'echo queued-and-done' }] },
  ]);

afterEach(async () => {
  // A server a failed test left running; then what a kill -9'd server leaves behind.
  await killAllServes();
  // A kill -9'd server cannot stop its node processes; make sure none outlives the test.
  for (const pgid of groups.splice(0)) killGroupQuietly(pgid);
});
afterAll(cleanupAll);

const readProcessNote = (home: string, runId: string, nodeId: string): Json | undefined => {
  const file = join(home, 'data', 'runs', runId, 'processes', `${nodeId}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};

const recordOnDisk = (home: string, runId: string): Json => JSON.parse(readFileSync(join(home, 'data', 'runs', runId, 'record.json'), 'utf8'));

const artifact = (home: string, runId: string, name: string) => join(home, 'data', 'runs', runId, 'artifacts', name);

async function sleeperStarted(home: string, runId: string): Promise<{ leader: number; sleep: number }> {
  const leader = await readPidFile(artifact(home, runId, 'leader.pid'));
  groups.push(leader);
  const sleep = await readPidFile(artifact(home, runId, 'sleep.pid'));
  return { leader, sleep };
}

describe('kill -9 of the server mid-run', () => {
  it('leaves the run failed/interrupted after a restart, and resume + start continues it to completed', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const first = await spawnServe({ home, cwd: project });
    const runId = await startRun(first, 'crashable', { message: 'crash me', conversationId: 'conv-crash' });
    const { leader, sleep } = await sleeperStarted(home, runId);
    expect((await getRun(first, runId)).status).toBe('running');
    // The node's process group is on record before the crash.
    await waitFor(() => (readProcessNote(home, runId, 'sleeper')?.pid === leader ? true : undefined));
    // And `once`'s end: a round's record write may land after the processes it starts
    // (docs/decisions.md, "Engine overhead"), so on a loaded machine the crash could come first.
    await waitFor(() => recordOnDisk(home, runId).nodes.once.status === 'completed');

    expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    // The node's processes lead their own group, so they outlive the server…
    expect(liveGroupMembers(leader)).toContain(sleep);

    const second = await spawnServe({ home, cwd: project });
    // …until the next server recovers the run: otherwise a resume would run the node twice.
    await waitForDeath(sleep);
    await waitForDeath(leader);
    const run = await getRun(second, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toBe('interrupted');
    expect(run.nodes.once.status).toBe('completed');
    expect(run.nodes.sleeper).toMatchObject({ status: 'failed', error: 'interrupted', errorCode: 'interrupted' });
    expect(run.errorCode).toBe('interrupted');
    expect(run.events.at(-1)).toMatchObject({ type: 'run_failed', error: 'interrupted', code: 'interrupted' });
    expect(run.events.map((e: Json) => e.seq)).toEqual(run.events.map((_: Json, i: number) => i + 1));
    // The run was started without a cwd: it ran in the server's working directory.
    expect(run.cwd).toBe(project);

    await writeFile(join(project, 'fast'), '');
    const marked = await api(second, 'POST', `/api/workflows/runs/${runId}/resume`);
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ status: 'failed', resumePending: true });
    const again = await api(second, 'POST', '/api/workflows/crashable/run', { message: 'crash me', conversationId: 'conv-crash' });
    expect(again.status).toBe(202);
    expect(again.body.runId).toBe(runId);
    const done = await waitForStatus(second, runId, 'completed');
    expect(done.nodes.sleeper.output).toBe('quick');
    expect(done.nodes.final.output).toBe('final after once-output');
    expect(readFileSync(artifact(home, runId, 'once-count.txt'), 'utf8')).toBe('ran\n');
    expect(eventTypes(done)).toContain('run_resumed');
    await second.stop();
  }, 90_000);

  it('stops the processes of a node whose start was not yet written when the server died', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const first = await spawnServe({ home, cwd: project });
    const runId = await startRun(first, 'crashable', { message: 'crash in the window', conversationId: 'conv-window' });
    const { leader, sleep } = await sleeperStarted(home, runId);
    await waitFor(() => (readProcessNote(home, runId, 'sleeper')?.pid === leader ? true : undefined));
    await waitFor(() => recordOnDisk(home, runId).nodes.once.status === 'completed');
    expect(await first.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    // A round's write overlaps the spawns it announces (docs/decisions.md, "Engine overhead"): the
    // crash can come before the record says `running`. Put the record in that state.
    const file = join(home, 'data', 'runs', runId, 'record.json');
    const record = JSON.parse(readFileSync(file, 'utf8')) as Json;
    record.nodes.sleeper = { ...record.nodes.sleeper, status: 'pending', startedAt: null, attempts: 0 };
    await writeFile(file, JSON.stringify(record));
    expect(liveGroupMembers(leader)).toContain(sleep);

    const second = await spawnServe({ home, cwd: project });
    await waitForDeath(sleep);
    await waitForDeath(leader);
    const run = await getRun(second, runId);
    expect(run).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(run.nodes.once.status).toBe('completed');
    expect(run.nodes.sleeper.status).toBe('pending');
    await second.stop();
  }, 90_000);

  it('keeps a paused run paused across the restart; it can still be approved', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const first = await spawnServe({ home, cwd: project });
    const runId = await startRun(first, 'gated', { message: '', cwd: project });
    await waitForStatus(first, runId, 'paused');
    await first.stop('SIGKILL');

    const second = await spawnServe({ home, cwd: project });
    const run = await getRun(second, runId);
    expect(run.status).toBe('paused');
    expect(run.nodes.gate.status).toBe('waiting_approval');
    const approved = await api(second, 'POST', `/api/workflows/runs/${runId}/approve`, { comment: 'yes, still' });
    expect(approved.status).toBe(200);
    const done = await waitForStatus(second, runId, 'completed');
    expect(done.nodes.after.output).toBe('approved: yes, still');
    await second.stop();
  }, 90_000);

  it('queues pending runs again after the restart', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const env = { SVC_MAX_CONCURRENT_RUNS: '1' };
    const first = await spawnServe({ home, cwd: project, env });
    const running = await startRun(first, 'crashable', { message: '', cwd: project });
    await sleeperStarted(home, running);
    const queued = await api(first, 'POST', '/api/workflows/quick/run', { message: '', cwd: project });
    expect(queued.body.status).toBe('pending');
    await first.stop('SIGKILL');

    const second = await spawnServe({ home, cwd: project, env });
    const done = await waitForStatus(second, queued.body.runId, 'completed');
    expect(done.nodes.one.output).toBe('queued-and-done');
    expect(await getRun(second, running)).toMatchObject({ status: 'failed', error: 'interrupted' });
    await second.stop();
  }, 90_000);
});

describe('graceful shutdown while a run executes', () => {
  it('SIGTERM to `svc serve` interrupts the run and kills its processes', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const server = await spawnServe({ home, cwd: project });
    const runId = await startRun(server, 'crashable', { message: '' });
    const { leader, sleep } = await sleeperStarted(home, runId);

    expect((await server.stop('SIGTERM')).code).toBe(0);
    await waitForDeath(sleep);
    expect(liveGroupMembers(leader)).toEqual([]);
    const record = JSON.parse(readFileSync(join(home, 'data', 'runs', runId, 'record.json'), 'utf8'));
    expect(record).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(record.nodes.sleeper).toMatchObject({ status: 'failed', error: 'interrupted' });
  }, 60_000);

  it('closing the in-process server interrupts the run; nothing of it survives; a restart keeps it failed', async () => {
    const home = await tempDir('svc-home-');
    const project = await makeCrashProject();
    const server = await startServer({ home });
    const runId = await startRun(server, 'crashable', { message: '', cwd: project });
    const { leader, sleep } = await sleeperStarted(home, runId);

    await server.stop();
    // close() resolves only after the run's processes are gone.
    expect(liveGroupMembers(leader)).toEqual([]);
    await waitForDeath(sleep, 1_000);

    const restarted = await startServer({ home });
    const run = await getRun(restarted, runId);
    expect(run).toMatchObject({ status: 'failed', error: 'interrupted' });
    // The node that was executing says so too (as after a crash), not "cancelled".
    expect(run.nodes.sleeper).toMatchObject({ status: 'failed', error: 'interrupted' });
    expect(run.nodes.once.status).toBe('completed');
    expect(eventTypes(run).filter((t) => t === 'run_failed')).toHaveLength(1);
    await restarted.stop();
    expect(existsSync(home)).toBe(true);
  }, 60_000);
});
