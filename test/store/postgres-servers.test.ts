// Several real `svc serve` processes on one PostgreSQL database (docs/scaling.md): runs are claimed
// by servers with free slots, none twice and none lost; a server killed outright has its runs marked
// interrupted by another within the lease, resumable there; a cancel sent to any server stops the
// process tree on the one executing the run; SSE on one server carries the others' runs; identical
// webhook deliveries split across servers make one run; the assistant configuration patched through
// one server is what another's agents use; a webhook trigger one server discovered answers on another.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { EventSource } from 'eventsource';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import {
  api,
  FAKE_CLAUDE,
  getRun,
  isAlive,
  projectWithWorkflows,
  startRun,
  tempDir,
  waitFor,
  waitForDeath,
  waitForRun,
  waitForStatus,
  type Json,
} from '../helpers/runs.js';
import { cleanupAll } from '../helpers/runs.js';
import { deliver, hookWorkflow, SECRET } from '../helpers/webhooks.js';
import { queryRows, usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

const LEASE_MS = 1500;

async function servers(url: string, count: number, cwd: string, env: Record<string, string> = {}): Promise<ServeProcess[]> {
  return Promise.all(
    // The first is given the database by `--database-url`, the others by SVC_DATABASE_URL.
    Array.from({ length: count }, async (_, i) =>
      spawnServe({
        home: await tempDir('svc-pg-home-'),
        cwd,
        args: i === 0 ? ['--database-url', url] : [],
        env: { ...(i === 0 ? {} : { SVC_DATABASE_URL: url }), SVC_RUN_LEASE_MS: String(LEASE_MS), PUSH_SECRET: SECRET, ...env },
      }),
    ),
  );
}

async function serverOf(url: string, runId: string): Promise<string | null> {
  return (await queryRows<{ server_id: string | null }>(url, 'SELECT server_id FROM runs WHERE id = $1', [runId]))[0]!.server_id;
}

/** Runs `work` over `items` with at most `width` at a time. */
async function inParallel<T>(items: T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

for (const count of [2, 3]) {
  it(`${count} servers: 200 quick runs spread over them, each executed once, none lost`, async () => {
    const url = await postgres.createDatabase();
    const project = await projectWithWorkflows([{ name: 'quick', nodes: [{ id: 'one', bash: 'echo done' }] }]);
    const all = await servers(url, count, project, { SVC_MAX_CONCURRENT_RUNS: '3' });
    const ids: string[] = [];
    // Sent to one server only: the others claim from the database when it has no free slot.
    await inParallel(
      Array.from({ length: 200 }, (_, i) => i),
      20,
      async (i) =>
        void ids.push(
          await startRun(all[0]!, 'quick', { message: `run ${i}`, cwd: project }).catch((error) => {
            console.log(all[0]!.stderr().slice(-3000));
            throw error;
          }),
        ),
    );
    expect(new Set(ids).size).toBe(200);
    await waitFor(
      async () => (await queryRows<{ n: number }>(url, "SELECT count(*)::int AS n FROM runs WHERE status = 'completed'"))[0]!.n === 200,
      90_000,
      () => 'all 200 runs completed',
    ).catch(async (error) => {
      console.log(JSON.stringify(await queryRows(url, 'SELECT status, server_id, count(*)::int FROM runs GROUP BY 1, 2')));
      for (const s of all) console.log(s.stderr().slice(-3000));
      throw error;
    });
    const started = await queryRows<{ run_id: string; n: number }>(
      url,
      "SELECT run_id, count(*)::int AS n FROM run_events WHERE record->>'type' = 'run_started' GROUP BY run_id",
    );
    expect(started).toHaveLength(200);
    expect(started.every((row) => row.n === 1)).toBe(true);
    const byServer = await queryRows<{ server_id: string; n: number }>(url, 'SELECT server_id, count(*)::int AS n FROM runs GROUP BY server_id');
    expect(byServer.every((row) => row.server_id !== null)).toBe(true);
    expect(byServer.length).toBe(count);
    const health = await api(all[1]!, 'GET', '/api/health');
    expect(health.body.concurrency.store).toMatchObject({ kind: 'postgres', servers: count, runningEverywhere: 0 });
  }, 180_000);
}

it('kill -9 of a server mid-run: another marks its run interrupted within the lease, and resumes it', async () => {
  const url = await postgres.createDatabase();
  const dir = await tempDir('svc-pg-marker-');
  // Sleeps on its first pass (noting its pid), completes on the second.
  const script = `if [ -f ${dir}/marker ]; then echo second-pass; else touch ${dir}/marker; echo $$ > ${dir}/pid; exec sleep 30; fi`;
  const project = await projectWithWorkflows([
    {
      name: 'slow',
      nodes: [
        { id: 'first', bash: 'echo first' },
        { id: 'sleepy', bash: script, depends_on: ['first'] },
      ],
    },
  ]);
  const [a, b] = await servers(url, 2, project);
  const runId = await startRun(a!, 'slow', { message: '', cwd: project });
  const pid = await waitFor(async () => Number((await readFile(join(dir, 'pid'), 'utf8').catch(() => '')).trim()) || undefined, 20_000);
  const owner = await serverOf(url, runId);
  expect(owner).not.toBeNull();
  await a!.stop('SIGKILL');
  const killedAt = Date.now();

  const interrupted = await waitForStatus(b!, runId, 'failed', 15_000);
  expect(Date.now() - killedAt).toBeLessThan(2 * LEASE_MS + 2000);
  expect(interrupted.error).toBe('interrupted');
  expect(interrupted.nodes.first.status).toBe('completed');
  expect(interrupted.nodes.sleepy).toMatchObject({ status: 'failed', error: 'interrupted' });
  // The process on the dead server's machine is not the other server's to kill (another home): stop it here.
  process.kill(pid, 'SIGKILL');

  expect((await api(b!, 'POST', `/api/workflows/runs/${runId}/resume`)).status).toBe(200);
  const again = await api(b!, 'POST', '/api/workflows/slow/run', { message: '', cwd: project, conversationId: interrupted.conversationId });
  expect(again.body.runId).toBe(runId);
  const done = await waitForStatus(b!, runId, 'completed', 20_000);
  expect(done.nodes.sleepy.output).toBe('second-pass');
  expect(await serverOf(url, runId)).not.toBe(owner);
}, 90_000);

it('a cancel sent to the server that does not run the run kills the process tree on the one that does', async () => {
  const url = await postgres.createDatabase();
  const dir = await tempDir('svc-pg-tree-');
  const project = await projectWithWorkflows([{ name: 'tree', nodes: [{ id: 'nest', bash: `sh -c 'sleep 60 & echo $! > ${dir}/child; wait'` }] }]);
  const [a, b] = await servers(url, 2, project);
  const runId = await startRun(a!, 'tree', { message: '', cwd: project });
  const child = await waitFor(async () => Number((await readFile(join(dir, 'child'), 'utf8').catch(() => '')).trim()) || undefined, 20_000);
  expect(isAlive(child)).toBe(true);
  const answer = await api(b!, 'POST', `/api/workflows/runs/${runId}/cancel`);
  expect(answer.status).toBe(200);
  expect(answer.body.status).toBe('cancelled');
  await waitForDeath(child);
  expect((await getRun(a!, runId)).status).toBe('cancelled');
  expect((await api(b!, 'POST', `/api/workflows/runs/${runId}/cancel`)).status).toBe(409);
}, 60_000);

it('SSE on server A carries the runs server B executes, in one order, and Last-Event-ID replays them on A', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([
    {
      name: 'chain',
      nodes: [
        { id: 'a', bash: 'echo a' },
        { id: 'b', bash: 'echo b', depends_on: ['a'] },
      ],
    },
  ]);
  const [a, b] = await servers(url, 2, project);
  const events: Json[] = [];
  const ids: string[] = [];
  const source = new EventSource(`${a!.url}/api/stream/__dashboard__`);
  source.onmessage = (message) => {
    events.push(JSON.parse(message.data));
    ids.push(message.lastEventId);
  };
  await new Promise<void>((resolve) => (source.onopen = () => resolve()));
  try {
    const onB = await startRun(b!, 'chain', { message: '', cwd: project });
    const onA = await startRun(a!, 'chain', { message: '', cwd: project });
    await waitFor(() => [onA, onB].every((id) => events.some((e) => e.runId === id && e.type === 'run_completed')), 20_000);
    const fromB = events.filter((e) => e.runId === onB);
    expect(fromB).toEqual((await getRun(b!, onB)).events);
    const positions = events.map((e) => e.pos as number);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(await serverOf(url, onB)).not.toBe(await serverOf(url, onA));
    const after = events[1]!.pos as number;
    const again: Json[] = [];
    const resumed = new EventSource(`${a!.url}/api/stream/__dashboard__`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'Last-Event-ID': String(after) } }),
    });
    resumed.onmessage = (message) => again.push(JSON.parse(message.data));
    try {
      await waitFor(() => again.length >= events.length - 2, 10_000);
      expect(again).toEqual(events.slice(2));
    } finally {
      resumed.close();
    }
  } finally {
    source.close();
  }
}, 60_000);

it('20 identical webhook deliveries split across two servers make one run', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([]);
  await writeFile(
    join(project, '.svc', 'workflows', 'hook.yaml'),
    hookWorkflow('hook', ['{ event: push, slug: on-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']),
  );
  const both = await servers(url, 2, project);
  const body = JSON.stringify({ event: 'push', delivery_id: 'one-for-all' });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(both[i % 2]!.url, 'on-push', body)));
  const accepted = answers.filter((answer) => answer.status === 202);
  expect(accepted).toHaveLength(1);
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(19);
  const runId = accepted[0]!.body.run_id;
  for (const answer of answers) expect(answer.body.run_id).toBe(runId);
  const runs = await queryRows<{ id: string }>(url, "SELECT id FROM runs WHERE workflow = 'hook'");
  expect(runs).toEqual([{ id: runId }]);
}, 60_000);

it('a server that missed its lease (stopped, not dead) finds its run interrupted by another and does not carry it on', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([
    {
      name: 'two-steps',
      nodes: [
        { id: 'first', bash: 'sleep 2; echo first' },
        { id: 'second', bash: 'echo second', depends_on: ['first'] },
      ],
    },
  ]);
  const [a, b] = await servers(url, 2, project);
  const runId = await startRun(a!, 'two-steps', { message: '', cwd: project });
  await waitForStatus(b!, runId, 'running', 10_000);
  // Frozen past its lease: the other server takes the run over as interrupted.
  process.kill(a!.pid, 'SIGSTOP');
  try {
    await waitForStatus(b!, runId, 'failed', 15_000);
  } finally {
    process.kill(a!.pid, 'SIGCONT');
  }
  // Woken, the first server's next write of the run is refused: it stops there.
  // Time passes on purpose: the woken server gets its chance to write (nothing it does not do can be waited for).
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const run = await getRun(b!, runId);
  expect(run).toMatchObject({ status: 'failed', error: 'interrupted' });
  expect((run.events as Json[]).some((e) => e.type === 'node_started' && e.nodeId === 'second')).toBe(false);
  expect((run.events as Json[]).filter((e) => e.type === 'run_failed')).toHaveLength(1);
}, 60_000);

it("a CLI command without a server of its own, on the shared database, leaves the servers' runs running", async () => {
  const url = await postgres.createDatabase();
  const dir = await tempDir('svc-pg-cli-');
  const project = await projectWithWorkflows([
    { name: 'nap', nodes: [{ id: 'nap', bash: `echo $$ > ${dir}/pid; exec sleep 30` }] },
    { name: 'quick', nodes: [{ id: 'one', bash: 'echo done' }] },
  ]);
  const [a] = await servers(url, 1, project);
  const done = await startRun(a!, 'quick', { message: '', cwd: project });
  await waitForStatus(a!, done, 'completed');
  const runId = await startRun(a!, 'nap', { message: '', cwd: project });
  const pid = await waitFor(async () => Number((await readFile(join(dir, 'pid'), 'utf8').catch(() => '')).trim()) || undefined, 20_000);
  // A writing command in the CLI's offline mode (its own SVC_HOME has no server) opens the store as its writer.
  const cli = await runCli(['delete', done], { env: { SVC_HOME: await tempDir('svc-pg-cli-home-'), SVC_DATABASE_URL: url } });
  expect(cli.code, cli.stderr).toBe(0);
  expect((await api(a!, 'GET', `/api/workflows/runs/${done}`)).status).toBe(404);
  expect((await getRun(a!, runId)).status).toBe('running');
  expect(isAlive(pid)).toBe(true);
  await api(a!, 'POST', `/api/workflows/runs/${runId}/cancel`);
  await waitForDeath(pid);
}, 60_000);

it("the assistant configuration patched through server A is what server B shows and what B's next agent start uses", async () => {
  const url = await postgres.createDatabase();
  const dir = await tempDir('svc-pg-config-');
  const agentLog = join(dir, 'agent.jsonl');
  const project = await projectWithWorkflows([{ name: 'ask', nodes: [{ id: 'ask', prompt: 'which model?' }] }]);
  const [a, b] = await servers(url, 2, project, { SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: agentLog });
  expect((await api(b!, 'GET', '/api/config')).body.assistants.claude.model).toBeNull();

  const patched = await api(a!, 'PATCH', '/api/config/assistants', { claude: { model: 'shared-model' } });
  expect(patched.status).toBe(200);
  expect((await api(b!, 'GET', '/api/config')).body.assistants).toEqual(patched.body.assistants);
  expect((await api(b!, 'GET', '/api/health')).body.adapter.model).toBe('shared-model');

  // B is the only one with a free slot, so the run started through it executes there.
  const bId = (await api(b!, 'GET', '/api/health')).body.concurrency.store.serverId;
  const runId = await startRun(b!, 'ask', { message: '', cwd: project });
  const run = await waitForRun(b!, runId);
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  expect(await serverOf(url, runId)).toBe(bId);
  const calls = (await readFile(agentLog, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { argv: string[] });
  expect(calls).toHaveLength(1);
  expect(calls[0]!.argv.slice(-2)).toEqual(['--model', 'shared-model']);
}, 60_000);

it('a webhook trigger discovered by server A answers a delivery to server B, and 20 identical deliveries split across both make one run', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([]);
  await writeFile(
    join(project, '.svc', 'workflows', 'hook.yaml'),
    hookWorkflow('hook', ['{ event: push, slug: on-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']),
  );
  // Only A sees the project (its working directory); B runs in an empty one and has never discovered the workflow.
  const [a] = await servers(url, 1, project);
  const elsewhere = await tempDir('svc-pg-elsewhere-');
  const [b] = await servers(url, 1, elsewhere);
  expect((await api(b!, 'GET', `/api/workflows?cwd=${encodeURIComponent(elsewhere)}`)).body.workflows.map((w: Json) => w.name)).not.toContain('hook');
  expect((await api(b!, 'GET', '/api/webhooks')).body.webhooks).toMatchObject([{ slug: 'on-push', workflow: 'hook', secret_configured: true }]);

  const single = await deliver(b!.url, 'on-push', JSON.stringify({ event: 'push', delivery_id: 'to-b' }));
  expect(single.status, JSON.stringify(single.body)).toBe(202);
  const run = await waitForRun(b!, single.body.run_id);
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  expect(run.cwd).toBe(project);
  expect(run.nodes.show.output).toContain('key=to-b');

  const body = JSON.stringify({ event: 'push', delivery_id: 'one-for-all' });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => deliver([a!, b!][i % 2]!.url, 'on-push', body)));
  expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(19);
  const runIds = new Set(answers.map((answer) => answer.body.run_id));
  expect(runIds.size).toBe(1);
  const runs = await queryRows<{ id: string }>(url, "SELECT id FROM runs WHERE workflow = 'hook' ORDER BY id");
  expect(runs.map((r) => r.id).sort()).toEqual([single.body.run_id, ...runIds].sort());
}, 60_000);
