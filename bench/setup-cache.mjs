// What the setup cache saves (issue 35, "Figures"): a repository whose `.svc/worktree.yaml` setup
// makes a dependency tree of 10,000 files, its `cache:` keyed by a lockfile. Measured on the real
// server in this process: request → first node started, cold (the setup runs and its tree is
// stored) and with a cache hit (the tree is restored instead). References measured in the same
// run: a raw `git worktree add` of the same repository, a plain `cp -r` of the cached tree, and
// the setup script's own time. The report says whether the filesystem cloned or copied.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './measure.mjs';
import { round, withTimeout } from './processes.mjs';

const DIST = new URL('../dist/', import.meta.url);
const REPS = 5;
const SETUP = [
  'for i in $(seq 1 100); do',
  '  mkdir -p node_modules/p$i',
  '  for j in $(seq 1 100); do echo "module.exports = $i * $j" > node_modules/p$i/f$j.js; done',
  'done',
].join('\n');

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

async function repository(root) {
  const dir = join(root, 'repo');
  await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
  await writeFile(join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
  await writeFile(join(dir, '.gitignore'), 'node_modules/\n');
  await writeFile(join(dir, '.svc', 'worktree.yaml'), `setup: |\n${SETUP.replace(/^/gm, '  ')}\ncache:\n  key: [package-lock.json]\n  paths: [node_modules]\n`);
  await writeFile(join(dir, '.svc', 'workflows', 'first.yaml'), 'name: first\ndescription: setup cache bench\nnodes:\n  - id: n\n    bash: "true"\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'add', '-A');
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  return dir;
}

export async function benchSetupCache() {
  const root = await mkdtemp(join(tmpdir(), 'svc-bench-cache-'));
  const { startServer } = await import(new URL('server/listen.js', DIST));
  const { loadSettings } = await import(new URL('shared/settings.js', DIST));
  const dir = await repository(root);
  const settings = loadSettings({ ...process.env, SVC_HOME: join(root, 'home'), PORT: '0', SVC_LOG_LEVEL: 'warn' });
  const server = await startServer({ settings, cwd: dir });
  const post = async (path, body) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  try {
    const added = await post('/api/workspaces', { path: dir });
    if (added.status !== 201) throw new Error(`bench: registering the repository answered ${added.status}: ${JSON.stringify(added.body)}`);
    const workspaceId = added.body.id;
    /** Request → the first node's start, and the run's record. */
    const firstNode = async () => {
      const t0 = Date.now();
      const started = await post('/api/workflows/first/run', { message: 'bench', workspaceId });
      if (started.status !== 202) throw new Error(`bench: starting a run answered ${started.status}: ${JSON.stringify(started.body)}`);
      const record = await withTimeout(server.ctx.engine.waitUntilSettled(started.body.runId), 120_000, 'a run of the setup cache bench');
      if (record.status !== 'completed') throw new Error(`bench: the run ended ${record.status}: ${record.error}`);
      return { ms: Date.parse(record.nodes.n.startedAt) - t0, record };
    };
    const cold = [];
    const setupMs = [];
    const hit = [];
    let cloned;
    for (let i = 0; i < REPS; i++) {
      await fetch(`${server.url}/api/workspaces/${workspaceId}/cache`, { method: 'DELETE' });
      const miss = await firstNode();
      if (miss.record.setup.source !== 'setup') throw new Error('bench: a cleared cache was not a miss');
      cold.push(miss.ms);
      setupMs.push(miss.record.setup.durationMs);
      const again = await firstNode();
      if (again.record.setup.source !== 'cache') throw new Error(`bench: the second run was not a cache hit: ${again.record.setup.output}`);
      hit.push(again.ms);
      cloned = (await (await fetch(`${server.url}/api/workspaces/${workspaceId}/cache`)).json()).entries[0]?.cloned;
    }
    // References: what git and cp alone take for the same worktree and tree.
    const raw = [];
    const copy = [];
    const entryTree = join(root, 'home', 'workspaces', workspaceId, 'cache');
    const key = execFileSync('ls', [entryTree], { encoding: 'utf8' })
      .split('\n')
      .find((name) => /^[0-9a-f]{32}$/.test(name));
    for (let i = 0; i < REPS; i++) {
      const t0 = performance.now();
      git(dir, 'worktree', 'add', '-q', '-b', `bench-${i}`, join(root, `raw-${i}`), 'main');
      raw.push(performance.now() - t0);
      const t1 = performance.now();
      execFileSync('cp', ['-r', join(entryTree, key, 'tree', 'node_modules'), join(root, `raw-${i}`, 'node_modules')]);
      copy.push(performance.now() - t1);
    }
    const hitMs = median(hit);
    const reference = median(raw) + median(copy);
    return [
      {
        name: `setup cache: request → first node, cache hit of a 10,000-file tree (${cloned ? 'cloned' : 'copied: the filesystem does not clone'}) ÷ git worktree add + cp -r (ms)`,
        value: round(hitMs, 1),
        unit: 'ms',
        reference: round(reference, 1),
        ratio: round(hitMs / reference),
        target: '≤ 1',
      },
      {
        name: 'setup cache: request → first node, cold ÷ its setup step (the script, then storing its tree) (ms)',
        value: round(median(cold), 1),
        unit: 'ms',
        reference: round(median(setupMs), 1),
        ratio: round(median(cold) / median(setupMs)),
      },
    ];
  } finally {
    await withTimeout(server.close(), 15_000, 'server close').catch(() => {});
    await rm(root, { recursive: true, force: true });
  }
}

// Run alone: `node bench/setup-cache.mjs` (after `npm run build`).
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchSetupCache()) console.log(JSON.stringify(row));
  process.exit(0);
}
