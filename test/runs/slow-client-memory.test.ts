// Issue 19 §3: clients that connect to the dashboard stream and never read must not pin the
// server's memory. Before the byte budget, each kept up to 2,048 unwritten events (each up to
// 64 KiB), and 500 of them took the server from 75 MB to 3.3 GB. Here 200 such clients watch
// runs that stream ~2 MiB each, and the real `svc serve` process's RSS is read from /proc.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { openStalledClient, type StalledClient } from '../helpers/stalled-sse.js';
import { cleanupAll, projectWithWorkflows, onCleanup, readLog, startRun, tempDir, waitFor, waitForRun } from '../helpers/runs.js';
import { spawnServe } from '../helpers/serve-process.js';

const CLIENTS = 200;
/** Runs until every client is cut: the kernel takes a few MiB for each socket before the server's side backs up. */
const MAX_RUNS = 6;
/** 16 nodes × (64 KiB of node_output + the same 64 KiB as node_completed's output) ≈ 2 MiB a run. */
const NODES = 16;
/**
 * Generous: three such runs alone grow an idle server (~75 MiB) by ~45 MiB, the 200 clients by
 * ~30 MiB more (the budget's frames are shared by every client, and the kernel's socket buffers
 * are not the process's memory). Without the budget the server went from 84 MiB to 1 GiB in three runs.
 */
const MAX_GROWTH_MIB = 200;

afterAll(cleanupAll);

function rssMiB(pid: number): number {
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS for pid ${pid}`);
  return kib / 1024;
}

it('cuts never-reading SSE clients at the byte budget, so their memory stays bounded', async () => {
  const nodes = Array.from({ length: NODES }, (_, i) => ({ id: `n${i}`, bash: "head -c 65536 /dev/zero | tr '\\0' x" }));
  const cwd = await projectWithWorkflows([{ name: 'bulky', nodes }]);
  const home = await tempDir('svc-home-');
  const server = await spawnServe({ home, cwd });
  onCleanup(() => server.stop('SIGKILL'));

  const clients: StalledClient[] = [];
  onCleanup(() => clients.forEach((client) => client.close()));
  for (let i = 0; i < CLIENTS; i++) clients.push(await openStalledClient(server.url, '/api/stream/__dashboard__'));
  const idle = rssMiB(server.pid);

  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 100);
  onCleanup(() => clearInterval(sampler));
  const slowClientEntries = () => readLog(home).filter((entry) => entry.event === 'stream.slow_client_closed');
  // Stops early once memory has grown past the bound: without the budget, more runs only take more.
  let runs = 0;
  while (runs < MAX_RUNS && slowClientEntries().length < CLIENTS && peak - idle < MAX_GROWTH_MIB) {
    const id = await startRun(server, 'bulky', { message: '', cwd });
    const run = await waitForRun(server, id, undefined, 90_000);
    expect(run.status).toBe('completed');
    runs++;
  }
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB(server.pid));
  expect(peak - idle, `RSS went from ${idle.toFixed(0)} MiB to ${peak.toFixed(0)} MiB`).toBeLessThan(MAX_GROWTH_MIB);

  const closed = await waitFor(
    () => {
      const entries = slowClientEntries();
      return entries.length >= CLIENTS ? entries : undefined;
    },
    30_000,
    () => `for ${CLIENTS} stream.slow_client_closed entries`,
  );
  expect(closed).toHaveLength(CLIENTS);
  for (const entry of closed) {
    expect(entry).toMatchObject({ level: 'warn', stream: '__dashboard__' });
    expect(entry.bufferedBytes).toBeGreaterThan(1024 * 1024);
  }
}, 240_000);
