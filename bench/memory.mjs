// What measuring a run's memory costs (issue 33, "Tests and figures"): a 20-node chain of bash
// "true" on a server sampling every node's process tree (`SVC_MEMORY_SAMPLE_MS`, default 500 ms)
// against the same chain on a server that measures nothing (`SVC_MEMORY_SAMPLE_MS=0`). Both servers
// run in this process on their own temporary homes; their runs alternate, so drift on a shared
// machine hits both alike. Each node takes its first sample as its process starts, so even a chain
// of nodes far shorter than the interval pays for one reading of /proc per node: that is the cost.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './measure.mjs';
import { round, withTimeout } from './processes.mjs';

const DIST = new URL('../dist/', import.meta.url);
const NODES = 20;
const WARMUP = 3;
const REPS = 15;

function chainYaml(n) {
  const lines = ['name: memory-chain', 'description: memory-chain (bench)', 'nodes:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  - id: n${i}`, '    bash: "true"');
    if (i > 0) lines.push(`    depends_on: [n${i - 1}]`);
  }
  return `${lines.join('\n')}\n`;
}

async function openServer(root, label, sampleMs) {
  const { startServer } = await import(new URL('server/listen.js', DIST));
  const { loadSettings } = await import(new URL('shared/settings.js', DIST));
  const home = join(root, label);
  await mkdir(home, { recursive: true });
  const settings = loadSettings({ ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_MEMORY_SAMPLE_MS: String(sampleMs) });
  const server = await startServer({ settings, cwd: root });
  const run = async () => {
    const t0 = performance.now();
    const response = await fetch(`${server.url}/api/workflows/memory-chain/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'bench', cwd: root }),
    });
    const body = await response.json();
    if (response.status !== 202) throw new Error(`bench: starting memory-chain answered ${response.status}: ${JSON.stringify(body)}`);
    const record = await withTimeout(server.ctx.engine.waitUntilSettled(body.runId), 60_000, `memory-chain on ${label}`);
    if (record.status !== 'completed') throw new Error(`bench: memory-chain on ${label} ended ${record.status}: ${record.error}`);
    return { ms: performance.now() - t0, record };
  };
  return { server, run };
}

export async function benchMemory() {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-memory-'));
  await mkdir(join(root, '.svc', 'workflows'), { recursive: true });
  await writeFile(join(root, '.svc', 'workflows', 'memory-chain.yaml'), chainYaml(NODES));
  const sampled = await openServer(root, 'sampled', 500);
  const unsampled = await openServer(root, 'unsampled', 0);
  try {
    for (let i = 0; i < WARMUP; i++) {
      await sampled.run();
      await unsampled.run();
    }
    const on = [];
    const off = [];
    let measuredNodes = 0;
    for (let i = 0; i < REPS; i++) {
      // Alternating which goes first, so neither always runs on a machine the other just warmed.
      const pair = i % 2 ? [unsampled, sampled] : [sampled, unsampled];
      for (const side of pair) {
        const { ms, record } = await side.run();
        if (side === sampled) {
          on.push(ms);
          measuredNodes = Object.values(record.nodes).filter((node) => typeof node.peakRssBytes === 'number').length;
        } else off.push(ms);
      }
    }
    if (measuredNodes !== NODES) throw new Error(`bench: the sampled chain measured ${measuredNodes} of ${NODES} nodes`);
    const onMs = median(on);
    const offMs = median(off);
    return [
      {
        name: `memory: ${NODES}-node chain, trees sampled every 500 ms ÷ not sampled (wall ms)`,
        value: round(onMs, 1),
        unit: 'ms',
        reference: round(offMs, 1),
        ratio: round(onMs / offMs, 3),
        target: '≤ 1.03',
      },
    ];
  } finally {
    await withTimeout(sampled.server.close(), 15_000, 'server close').catch(() => {});
    await withTimeout(unsampled.server.close(), 15_000, 'server close').catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
}

// Run alone: `node bench/memory.mjs` (after `npm run build`).
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchMemory()) console.log(JSON.stringify(row));
  process.exit(0);
}
