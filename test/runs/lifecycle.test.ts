// The run lifecycle of docs/contract.md, "Run states" over a real server: approval gates, cancel and abandon killing
// whole process trees, every wrong-state 409, 404s, delete, and resume after a failure.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/error-body.js';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  eventTypes,
  getRun,
  type Json,
  killQuietly,
  liveGroupMembers,
  projectWithWorkflows,
  readPidFile,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitForDeath,
  waitForRun,
  waitForStatus,
  writeWorkflows,
} from '../helpers/runs.js';

let server: TestServer;
let project: string;
const strays: number[] = [];

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'gated',
      nodes: [
        { id: 'prep', bash: 'echo prepared' },
        { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['prep'] },
        { id: 'after', bash: `printf '%s\\n' "approved: $gate.output"`, depends_on: ['gate'] },
        { id: 'aside', bash: 'echo aside' },
      ],
    },
    {
      name: 'tree',
      nodes: [{ id: 'spawner', bash: 'echo $$ > "$ARTIFACTS_DIR/leader.pid"; sleep 100 & echo $! > "$ARTIFACTS_DIR/grandchild.pid"; wait' }],
    },
    {
      // Ignores SIGTERM, and so does its background child (an ignored signal is inherited).
      name: 'stubborn-tree',
      nodes: [{ id: 'spawner', bash: `trap '' TERM; sleep 100 & echo $! > "$ARTIFACTS_DIR/grandchild.pid"; wait` }],
    },
    { name: 'agent-tree', nodes: [{ id: 'agent', prompt: 'start a helper [fake:child]' }] },
    {
      name: 'two-gates',
      nodes: [
        { id: 'first', approval: { message: 'First?' } },
        { id: 'second', approval: { message: 'Second?' } },
        { id: 'after', bash: `printf '%s+%s\\n' $first.output $second.output`, depends_on: ['first', 'second'] },
      ],
    },
    {
      name: 'gate-then-wait',
      nodes: [
        { id: 'gate', approval: { message: 'Go?' } },
        { id: 'after', bash: 'sleep 1; echo after', depends_on: ['gate'] },
      ],
    },
    { name: 'quick', nodes: [{ id: 'one', bash: 'echo done' }] },
    { name: 'failing', nodes: [{ id: 'one', bash: 'exit 1' }] },
    {
      name: 'resumable',
      nodes: [
        { id: 'once', bash: 'echo ran >> "$ARTIFACTS_DIR/once-count.txt"; echo once-output' },
        { id: 'flaky', bash: `if [ ! -e "$WORKSPACE_DIR/flag" ]; then echo "no flag" >&2; exit 1; fi; echo "flaky got $once.output"`, depends_on: ['once'] },
        { id: 'final', bash: 'echo final', depends_on: ['flaky'] },
      ],
    },
  ]);
  server = await startServer();
});
afterAll(async () => {
  for (const pid of strays) killQuietly(pid, 'sleep');
  await cleanupAll();
});

const artifact = (runId: string, name: string) => join(server.home, 'data', 'runs', runId, 'artifacts', name);
const post = (runId: string, op: string, body?: unknown) => api(server, 'POST', `/api/workflows/runs/${runId}/${op}`, body);
const postBare = async (runId: string, op: string) => {
  const response = await server.fetch(`/api/workflows/runs/${runId}/${op}`, { method: 'POST' });
  return { status: response.status, body: (await response.json()) as Json };
};

async function pausedRun(): Promise<Json> {
  const runId = await startRun(server, 'gated', { message: '', cwd: project });
  return waitForStatus(server, runId, 'paused');
}

describe('approval gates', () => {
  it('pause the run with a run_paused event naming the gate and its message', async () => {
    const run = await pausedRun();
    expect(run.nodes.prep.status).toBe('completed');
    expect(run.nodes.gate.status).toBe('waiting_approval');
    expect(run.nodes.after.status).toBe('pending');
    // Nodes that do not depend on the gate still ran before the run paused.
    expect(run.nodes.aside.status).toBe('completed');
    expect(run.events.find((e: Json) => e.type === 'run_paused')).toMatchObject({ nodeId: 'gate', message: 'Ship it?' });
    await post(run.id, 'abandon');
  });

  it('approve {comment}: the gate completes with the comment as output, downstream sees it, the run completes', async () => {
    const run = await pausedRun();
    const comment = `LGTM, it's "fine" $(touch PWNED)`;
    const answer = await post(run.id, 'approve', { comment });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(run.id);
    const done = await waitForStatus(server, run.id, 'completed');
    expect(done.nodes.gate).toMatchObject({ status: 'completed', output: comment });
    expect(done.nodes.after.output).toBe(`approved: ${comment}`);
    expect(existsSync(join(project, 'PWNED'))).toBe(false);
    expect(done.events.find((e: Json) => e.type === 'run_approved')).toMatchObject({ nodeId: 'gate', comment });
    const types = eventTypes(done);
    expect(types.indexOf('run_paused')).toBeLessThan(types.indexOf('run_approved'));
    expect(types.at(-1)).toBe('run_completed');
  });

  it('approve with a free slot takes the run straight to running, recorded before the answer; run_approved precedes the gate completing', async () => {
    const runId = await startRun(server, 'gate-then-wait', { message: '', cwd: project });
    await waitForStatus(server, runId, 'paused');
    const answer = await post(runId, 'approve', { comment: 'go' });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('running');
    const onDisk = JSON.parse(readFileSync(join(server.home, 'data', 'runs', runId, 'record.json'), 'utf8')) as Json;
    expect(onDisk.status).toBe('running');
    const run = await getRun(server, runId);
    expect(run.status).toBe('running');
    const events = run.events as Json[];
    const approved = events.findIndex((e) => e.type === 'run_approved');
    const gateCompleted = events.findIndex((e) => e.type === 'node_completed' && e.nodeId === 'gate');
    expect(approved).toBeGreaterThan(-1);
    expect(approved).toBeLessThan(gateCompleted);
    // It never went back to the queue: started once, before the pause.
    const done = await waitForStatus(server, runId, 'completed');
    expect(eventTypes(done).filter((type) => type === 'run_started')).toHaveLength(1);
  });

  it('approve without a body: the gate output is empty', async () => {
    const run = await pausedRun();
    const answer = await postBare(run.id, 'approve');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const done = await waitForStatus(server, run.id, 'completed');
    expect(done.nodes.gate.output).toBe('');
    expect(done.nodes.after.output).toBe('approved: ');
  });

  it('reject {reason}: the run is cancelled with rejectReason; the gate records it', async () => {
    const run = await pausedRun();
    const answer = await post(run.id, 'reject', { reason: 'not today' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'cancelled', rejectReason: 'not today' });
    const done = await getRun(server, run.id);
    expect(done).toMatchObject({ status: 'cancelled', rejectReason: 'not today' });
    expect(done.nodes.gate.status).toBe('cancelled');
    expect(done.nodes.gate.error).toContain('not today');
    expect(done.nodes.after.status).toBe('cancelled');
    expect(done.events.find((e: Json) => e.type === 'run_rejected')).toMatchObject({ nodeId: 'gate', reason: 'not today' });
    expect(eventTypes(done).at(-1)).toBe('run_cancelled');
  });

  it('reject without a body works too', async () => {
    const run = await pausedRun();
    const answer = await postBare(run.id, 'reject');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.status).toBe('cancelled');
    expect((await getRun(server, run.id)).status).toBe('cancelled');
  });

  it('with two gates waiting, approve completes one and the run pauses again at the other', async () => {
    const runId = await startRun(server, 'two-gates', { message: '', cwd: project });
    await waitForStatus(server, runId, 'paused');
    expect((await post(runId, 'approve', { comment: 'one' })).status).toBe(200);
    const again = await waitForRun(server, runId, (run) => run.status === 'paused' && run.events.filter((e: Json) => e.type === 'run_paused').length === 2);
    const pauses = again.events.filter((e: Json) => e.type === 'run_paused');
    expect(pauses.map((e: Json) => e.nodeId)).toEqual(['first', 'second']);
    expect(pauses[1].message).toBe('Second?');
    expect((await post(runId, 'approve', { comment: 'two' })).status).toBe(200);
    const done = await waitForStatus(server, runId, 'completed');
    expect(done.nodes.after.output).toBe('one+two');
  });

  it('approve with a body of the wrong shape is 400', async () => {
    const run = await pausedRun();
    const answer = await post(run.id, 'approve', { comment: 5 });
    expect(answer.status).toBe(400);
    const unknown = await post(run.id, 'reject', { why: 'typo' });
    expect(unknown.status).toBe(400);
    expect((await getRun(server, run.id)).status).toBe('paused');
    await post(run.id, 'abandon');
  });
});

describe('cancel and abandon stop the whole process tree', () => {
  it('cancel kills a backgrounded grandchild (`sleep 100 &`)', async () => {
    const runId = await startRun(server, 'tree', { message: '', cwd: project });
    const grandchild = await readPidFile(artifact(runId, 'grandchild.pid'));
    const leader = await readPidFile(artifact(runId, 'leader.pid'));
    strays.push(grandchild);
    const answer = await post(runId, 'cancel');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('cancelled');
    await waitForDeath(grandchild);
    expect(liveGroupMembers(leader)).toEqual([]);
    const run = await getRun(server, runId);
    expect(run.status).toBe('cancelled');
    expect(run.nodes.spawner.status).toBe('cancelled');
    expect(eventTypes(run).at(-1)).toBe('run_cancelled');
  });

  it('cancel SIGKILLs a tree that ignores SIGTERM after the grace period', async () => {
    const runId = await startRun(server, 'stubborn-tree', { message: '', cwd: project });
    const grandchild = await readPidFile(artifact(runId, 'grandchild.pid'));
    strays.push(grandchild);
    expect((await post(runId, 'cancel')).status).toBe(200);
    await waitForDeath(grandchild);
    expect((await getRun(server, runId)).status).toBe('cancelled');
  }, 45_000);

  it('cancel kills an agent and the helper process it started', async () => {
    const pidFile = join(await tempDir('svc-child-pid-'), 'child.pid');
    setProcessEnv({ FAKE_CLAUDE_CHILD_PID_FILE: pidFile });
    const runId = await startRun(server, 'agent-tree', { message: '', cwd: project });
    const helper = await readPidFile(pidFile);
    strays.push(helper);
    await waitForStatus(server, runId, 'running');
    expect((await post(runId, 'cancel')).status).toBe(200);
    await waitForDeath(helper);
    const run = await getRun(server, runId);
    expect(run.status).toBe('cancelled');
    expect(run.nodes.agent.status).toBe('cancelled');
  });

  it('abandon of a running run kills its tree and ends abandoned', async () => {
    const runId = await startRun(server, 'tree', { message: '', cwd: project });
    const grandchild = await readPidFile(artifact(runId, 'grandchild.pid'));
    strays.push(grandchild);
    const answer = await post(runId, 'abandon');
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('abandoned');
    await waitForDeath(grandchild);
    const run = await getRun(server, runId);
    expect(run.status).toBe('abandoned');
    expect(eventTypes(run).at(-1)).toBe('run_abandoned');
  });

  it('abandon of a paused run ends it abandoned', async () => {
    const run = await pausedRun();
    const answer = await post(run.id, 'abandon');
    expect(answer.status).toBe(200);
    const after = await getRun(server, run.id);
    expect(after.status).toBe('abandoned');
    expect(after.nodes.gate.status).toBe('cancelled');
    expect(after.nodes.after.status).toBe('cancelled');
    expect(eventTypes(after).at(-1)).toBe('run_abandoned');
  });
});

describe('wrong states and unknown runs', () => {
  let completed: string;
  let running: string;
  let paused: string;
  beforeAll(async () => {
    completed = (await waitForRun(server, await startRun(server, 'quick', { message: '', cwd: project }))).id;
    running = await startRun(server, 'tree', { message: '', cwd: project });
    strays.push(await readPidFile(artifact(running, 'grandchild.pid')));
    await waitForStatus(server, running, 'running');
    paused = (await pausedRun()).id;
  });
  afterAll(async () => {
    await post(running, 'cancel');
    await post(paused, 'abandon');
  });

  const TERMINAL = ['completed', 'failed', 'cancelled', 'abandoned'];
  const idOf = (status: string) => ({ completed, running, paused })[status as 'completed']!;
  it.each([
    ['cancel', 'completed', ['pending', 'running', 'waiting']],
    ['cancel', 'paused', ['pending', 'running', 'waiting']],
    ['approve', 'running', ['paused']],
    ['approve', 'completed', ['paused']],
    ['reject', 'completed', ['paused']],
    ['reject', 'running', ['paused']],
    ['resume', 'completed', ['failed']],
    ['resume', 'running', ['failed']],
    ['abandon', 'completed', ['pending', 'running', 'paused', 'waiting']],
    ['delete', 'running', TERMINAL],
    ['delete', 'paused', TERMINAL],
  ] as Array<[string, string, string[]]>)('%s of a %s run is 409 invalid_run_state', async (op, status, allowed) => {
    const id = () => idOf(status);
    const answer = op === 'delete' ? await api(server, 'DELETE', `/api/workflows/runs/${id()}`) : await post(id(), op);
    expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    expectErrorBody(answer.body, 'invalid_run_state');
    expect(answer.body.details.status).toBe(status);
    expect([...answer.body.details.allowed].sort()).toEqual([...allowed].sort());
    // Nothing changed.
    expect((await getRun(server, id())).status).toBe(status);
  });

  it.each(['cancel', 'resume', 'abandon', 'approve', 'reject', 'delete', 'get'])('%s of an unknown run is 404 run_not_found', async (op) => {
    const id = 'run_unknown_0000000000';
    const answer =
      op === 'delete'
        ? await api(server, 'DELETE', `/api/workflows/runs/${id}`)
        : op === 'get'
          ? await api(server, 'GET', `/api/workflows/runs/${id}`)
          : await post(id, op);
    expect(answer.status).toBe(404);
    expectErrorBody(answer.body, 'run_not_found');
  });
});

describe('delete', () => {
  it('removes a terminal run, its events and its folder', async () => {
    const runId = (await waitForRun(server, await startRun(server, 'quick', { message: '', cwd: project }))).id;
    const folder = join(server.home, 'data', 'runs', runId);
    expect(existsSync(join(folder, 'events.jsonl'))).toBe(true);
    expect(existsSync(join(folder, 'artifacts', 'one.out'))).toBe(true);
    const answer = await api(server, 'DELETE', `/api/workflows/runs/${runId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ deleted: true, runId });
    const gone = await api(server, 'GET', `/api/workflows/runs/${runId}`);
    expect(gone.status).toBe(404);
    expectErrorBody(gone.body, 'run_not_found');
    expect(existsSync(folder)).toBe(false);
    const listed = await api(server, 'GET', '/api/workflows/runs?limit=200');
    expect(listed.body.runs.map((r: Json) => r.id)).not.toContain(runId);
    expect((await api(server, 'DELETE', `/api/workflows/runs/${runId}`)).status).toBe(404);
  });

  it('deletes failed, cancelled and abandoned runs too', async () => {
    const failed = (await waitForRun(server, await startRun(server, 'failing', { message: '', cwd: project }))).id;
    const rejected = (await pausedRun()).id;
    await post(rejected, 'reject');
    const abandoned = (await pausedRun()).id;
    await post(abandoned, 'abandon');
    for (const id of [failed, rejected, abandoned]) {
      expect((await api(server, 'DELETE', `/api/workflows/runs/${id}`)).status).toBe(200);
      expect(existsSync(join(server.home, 'data', 'runs', id))).toBe(false);
    }
  });
});

describe('resume', () => {
  it('continues a failed run under the same id, skipping what completed', async () => {
    const first = await waitForRun(server, await startRun(server, 'resumable', { message: 'go', conversationId: 'conv-resume', cwd: project }));
    expect(first.status).toBe('failed');
    expect(first.resumePending).toBe(false);
    expect(first.nodes.once.status).toBe('completed');
    expect(first.nodes.flaky.status).toBe('failed');
    expect(first.nodes.final.status).toBe('skipped');

    const marked = await post(first.id, 'resume');
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ id: first.id, status: 'failed', resumePending: true });
    expect(await getRun(server, first.id)).toMatchObject({ status: 'failed', resumePending: true });

    // Another conversation does not pick the marked run up.
    const elsewhere = await startRun(server, 'resumable', { message: 'go', conversationId: 'conv-other', cwd: project });
    expect(elsewhere).not.toBe(first.id);
    await waitForRun(server, elsewhere);

    await writeFile(join(project, 'flag'), '');
    const answer = await api(server, 'POST', '/api/workflows/resumable/run', { message: 'go', conversationId: 'conv-resume', cwd: project });
    expect(answer.status).toBe(202);
    expect(answer.body.runId).toBe(first.id);
    const done = await waitForStatus(server, first.id, 'completed');
    expect(done.resumePending).toBe(false);
    expect(done.error).toBeNull();
    expect(readFileSync(artifact(first.id, 'once-count.txt'), 'utf8')).toBe('ran\n');
    // The completed node's output was restored for its dependants.
    expect(done.nodes.once.output).toBe('once-output');
    expect(done.nodes.flaky.output).toBe('flaky got once-output');
    expect(done.nodes.final.status).toBe('completed');
    const resumed = done.events.find((e: Json) => e.type === 'run_resumed');
    expect(resumed).toBeDefined();
    expect(resumed.skipped).toEqual(['once']);
    expect(done.events.filter((e: Json) => e.type === 'node_started' && e.nodeId === 'once')).toHaveLength(1);
    // One event log: seq keeps counting across the resume.
    expect(done.events.map((e: Json) => e.seq)).toEqual(done.events.map((_: Json, i: number) => i + 1));

    // Once completed, the same conversation starts a new run.
    const fresh = await startRun(server, 'resumable', { message: 'go', conversationId: 'conv-resume', cwd: project });
    expect(fresh).not.toBe(first.id);
    await waitForRun(server, fresh);
  });

  it('continues with the edited workflow: a node removed from the definition is gone from the run', async () => {
    const edited = await projectWithWorkflows([
      {
        name: 'editable',
        nodes: [
          { id: 'first', bash: 'echo first' },
          { id: 'broken', bash: 'exit 1', depends_on: ['first'] },
          { id: 'second', bash: 'echo second', depends_on: ['first'] },
        ],
      },
    ]);
    const failed = await waitForRun(server, await startRun(server, 'editable', { message: '', conversationId: 'conv-edit', cwd: edited }));
    expect(failed.status).toBe('failed');
    // The fix: drop the broken node, add another.
    await writeWorkflows(edited, [
      {
        name: 'editable',
        nodes: [
          { id: 'first', bash: 'echo first' },
          { id: 'second', bash: 'echo second', depends_on: ['first'] },
          { id: 'third', bash: 'echo third', depends_on: ['second'] },
        ],
      },
    ]);
    expect((await post(failed.id, 'resume')).status).toBe(200);
    const runId = await startRun(server, 'editable', { message: '', conversationId: 'conv-edit', cwd: edited });
    expect(runId).toBe(failed.id);
    const done = await waitForRun(server, runId);
    expect(done.status, JSON.stringify({ error: done.error, nodes: done.nodes })).toBe('completed');
    expect(Object.keys(done.nodes).sort()).toEqual(['first', 'second', 'third']);
    expect(done.nodes.third.output).toBe('third');
  });
});
