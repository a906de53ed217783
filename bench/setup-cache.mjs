// What the setup cache and the pool save (issue 35, "Figures"): a repository whose
// `.svc/worktree.yaml` setup makes a dependency tree of 10,000 files, its `cache:` keyed by a
// lockfile. Measured on the real server in this process: request → first node started, cold (the
// setup runs and its tree is stored), with a cache hit (the tree is restored instead), and with a
// warm pool (`pool: 1`: a worktree prepared ahead is taken). References measured in the same run: a
// raw `git worktree add` of the same repository, a plain `cp -r` of the cached tree, and the setup
// script's own time.
//
// Disk: ten worktrees of one key and the cache entry they share, as the filesystem allocated them
// (statfs before and after), against the same measure of ten worktrees without the tree and one
// `cp -r` of it — twice: for the tree of 10,000 tiny files, and for 10,000 files of real packages
// (svc's own `node_modules`). The rows say which filesystem it was and whether it cloned or copied.
// A clone shares the files' data, not their inodes and directory entries: every worktree needs its
// own, or one run could change another's files.
//
// The warm pool is measured on repositories of 5, 1,000 and 3,000 tracked files, each against a raw
// `git worktree add` of it; beside each, the same workflow on a repository of as many files with no
// setup at all (no `.svc/worktree.yaml`) against a raw add of that one: the issue's "bar today".
// On five files git makes a worktree in a few milliseconds and svc's own way from a request to a
// first node (workflow resolution, fsynced records, the node's process) is most of the figure; on
// more, a worktree costs git a checkout that taking a prepared one does not.
// `SVC_BENCH_CACHE_DIR=<dir>` puts the repositories and the home there (a btrfs or XFS-with-reflink
// mount, to see what cloning saves); the OS temp directory otherwise.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
const WORKTREE_YAML = `setup: |\n${SETUP.replace(/^/gm, '  ')}\ncache:\n  key: [package-lock.json]\n  paths: [node_modules]\n`;
const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com'];

const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

/** The filesystem `path` is on, as `df -T` names it. */
const fsType = (path) => execFileSync('df', ['-T', path], { encoding: 'utf8' }).split('\n')[1]?.split(/\s+/)[1] ?? 'unknown filesystem';

/** Bytes free on the filesystem of `path` (what it allocates shows as less free). */
const freeBytes = async (path) => {
  // Written out first: a filesystem that allocates late (XFS's delayed allocation) counts blocks it
  // reserved for unwritten data as used, several times what they will take.
  execFileSync('sync', ['-f', path]);
  const info = await statfs(path);
  return info.bfree * info.bsize;
};

/** What the filesystem of `root` allocated while `action` ran (statfs before and after): data, inodes and directories alike. */
const allocatedBy = async (root, action) => {
  const before = await freeBytes(root);
  await action();
  return before - (await freeBytes(root));
};

/**
 * A setup that installs a real dependency tree: whole packages of svc's own `node_modules`, in name
 * order, until 10,000 files (packages over 20 MB left out), copied without sharing their data.
 * What a tree of real file sizes costs beside the tiny files of `SETUP`.
 */
function realPackagesSetup() {
  const source = fileURLToPath(new URL('../node_modules/', import.meta.url));
  /** Files under `dir` and their bytes. */
  const walk = (dir) => {
    const found = { files: 0, bytes: 0 };
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        const inner = walk(path);
        found.files += inner.files;
        found.bytes += inner.bytes;
      } else if (entry.isFile()) {
        found.files += 1;
        found.bytes += statSync(path).size;
      }
    }
    return found;
  };
  const packages = readdirSync(source)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(source, name)).map((inner) => `${name}/${inner}`) : [name]));
  const picked = [];
  const total = { files: 0, bytes: 0 };
  for (const pkg of packages) {
    if (total.files >= 10_000) break;
    const size = walk(join(source, pkg));
    if (size.bytes > 20e6) continue;
    picked.push(pkg);
    total.files += size.files;
    total.bytes += size.bytes;
  }
  const lines = picked.map((pkg) => `mkdir -p node_modules/${dirname(pkg)} && cp -r --reflink=never '${join(source, pkg)}' node_modules/${pkg}`);
  return { script: lines.join('\n'), ...total };
}

/** A repository with a one-node workflow, the setup (and `pool:`) unless `setup: false`, and `trackedFiles` more source files. */
async function repository(root, name, { trackedFiles = 0, pool = 0, setup = true, worktreeYaml = WORKTREE_YAML } = {}) {
  const dir = join(root, name);
  await mkdir(join(dir, '.svc', 'workflows'), { recursive: true });
  await writeFile(join(dir, 'package-lock.json'), '{"lockfileVersion": 3}\n');
  await writeFile(join(dir, '.gitignore'), 'node_modules/\n');
  if (setup) await writeFile(join(dir, '.svc', 'worktree.yaml'), `${worktreeYaml}${pool ? `pool: ${pool}\n` : ''}`);
  await writeFile(join(dir, '.svc', 'workflows', 'first.yaml'), 'name: first\ndescription: setup cache bench\nnodes:\n  - id: n\n    bash: "true"\n');
  for (let i = 0; i < trackedFiles; i++) {
    if (i % 100 === 0) await mkdir(join(dir, 'src', `m${i / 100}`), { recursive: true });
    await writeFile(join(dir, 'src', `m${Math.floor(i / 100)}`, `f${i}.js`), `export const f${i} = () => ${i};\n`);
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, ...IDENTITY, 'add', '-A');
  git(dir, ...IDENTITY, 'commit', '-qm', 'init');
  return dir;
}

export async function benchSetupCache() {
  const root = await mkdtemp(join(process.env.SVC_BENCH_CACHE_DIR ?? tmpdir(), 'svc-bench-cache-'));
  const { startServer } = await import(new URL('server/listen.js', DIST));
  const { loadSettings } = await import(new URL('shared/settings.js', DIST));
  const dir = await repository(root, 'repo');
  const settings = loadSettings({ ...process.env, SVC_HOME: join(root, 'home'), PORT: '0', SVC_LOG_LEVEL: 'warn' });
  const server = await startServer({ settings, cwd: dir });
  const post = async (path, body) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  };
  const register = async (path) => {
    const added = await post('/api/workspaces', { path });
    if (added.status !== 201) throw new Error(`bench: registering the repository answered ${added.status}: ${JSON.stringify(added.body)}`);
    return added.body.id;
  };
  /** Request → the first node's start, and the run's record. */
  const firstNode = async (workspaceId) => {
    const t0 = Date.now();
    const started = await post('/api/workflows/first/run', { message: 'bench', workspaceId });
    if (started.status !== 202) throw new Error(`bench: starting a run answered ${started.status}: ${JSON.stringify(started.body)}`);
    const record = await withTimeout(server.ctx.engine.waitUntilSettled(started.body.runId), 120_000, 'a run of the setup cache bench');
    if (record.status !== 'completed') throw new Error(`bench: the run ended ${record.status}: ${record.error}`);
    return { ms: Date.parse(record.nodes.n.startedAt) - t0, record };
  };
  /**
   * Each run taken from a pool made full first (`pool: 1`), against a raw `git worktree add` of the
   * repository; and a run of the same workflow on `bare`, a repository of as many files with no
   * setup at all, against a raw add of that one.
   */
  const warmPool = async (repo, workspaceId, bare) => {
    const tip = git(repo, 'rev-parse', 'main').trim();
    const ready = async () => {
      for (;;) {
        const { pool } = await (await fetch(`${server.url}/api/workspaces/${workspaceId}`)).json();
        if (pool.worktrees.some((worktree) => worktree.state === 'ready' && worktree.commit === tip)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const rawAdd = (at, name) => {
      const t0 = performance.now();
      git(at, 'worktree', 'add', '-q', '-b', name, join(root, name), 'main');
      return performance.now() - t0;
    };
    const pooled = [];
    const raw = [];
    const plain = [];
    const rawPlain = [];
    for (let i = 0; i < REPS; i++) {
      plain.push((await firstNode(bare.workspace)).ms);
      rawPlain.push(rawAdd(bare.repo, `raw-bare-${bare.workspace}-${i}`));
      await withTimeout(ready(), 120_000, 'the pool becoming ready');
      const taken = await firstNode(workspaceId);
      if (taken.record.setup.source !== 'pool') throw new Error(`bench: a run did not take from the pool: ${taken.record.setup.output}`);
      pooled.push(taken.ms);
      // Measured once the refill is done, as the run was: on a machine doing nothing else of svc's.
      await withTimeout(ready(), 120_000, 'the pool becoming ready');
      raw.push(rawAdd(repo, `raw-pool-${workspaceId}-${i}`));
    }
    return { ms: median(pooled), raw: median(raw), plain: median(plain), rawPlain: median(rawPlain) };
  };
  try {
    const workspaceId = await register(dir);
    const cold = [];
    const setupMs = [];
    const hit = [];
    let cloned;
    for (let i = 0; i < REPS; i++) {
      await fetch(`${server.url}/api/workspaces/${workspaceId}/cache`, { method: 'DELETE' });
      const miss = await firstNode(workspaceId);
      if (miss.record.setup.source !== 'setup') throw new Error('bench: a cleared cache was not a miss');
      cold.push(miss.ms);
      setupMs.push(miss.record.setup.durationMs);
      const again = await firstNode(workspaceId);
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
    const filesystem = fsType(root);
    const how = cloned ? 'cloned' : 'copied: the filesystem does not clone';

    // Disk: ten worktrees of one key from an empty cache — the first runs the setup and stores the
    // tree (the one copy), the nine others restore it — all the filesystem allocated for them,
    // against the same measure of what the target counts: ten worktrees without the tree and one copy of it.
    const tenWorktrees = async (repo, workspace) => {
      await fetch(`${server.url}/api/workspaces/${workspace}/cache`, { method: 'DELETE' });
      const ten = [];
      const allocated = await allocatedBy(root, async () => {
        for (let i = 0; i < 10; i++) ten.push((await firstNode(workspace)).record);
      });
      if (ten.slice(1).some((record) => record.setup.source !== 'cache')) throw new Error('bench: a disk run was not a cache hit');
      const entries = join(root, 'home', 'workspaces', workspace, 'cache');
      const entry = readdirSync(entries).find((name) => /^[0-9a-f]{32}$/.test(name));
      const scratch = join(root, `disk-reference-${workspace}`);
      const worktree = await allocatedBy(root, async () => git(repo, 'worktree', 'add', '-q', '--detach', scratch, 'main'));
      const tree = await allocatedBy(root, async () =>
        execFileSync('cp', ['-r', '--reflink=never', join(entries, entry, 'tree', 'node_modules'), join(scratch, 'node_modules')]),
      );
      const cloned = (await (await fetch(`${server.url}/api/workspaces/${workspace}/cache`)).json()).entries[0]?.cloned;
      return { allocated, reference: 10 * worktree + tree, tree, cloned };
    };
    const diskRow = (disk, what) => ({
      name: `setup cache: disk allocated by ten worktrees of one key and their cache entry, ${what} (${filesystem}: ${disk.cloned ? 'cloned' : 'copied'}) ÷ ten worktrees + one copy of the tree, each as the filesystem allocated it (MB)`,
      value: round(disk.allocated / 1e6, 1),
      unit: 'MB',
      reference: round(disk.reference / 1e6, 1),
      ratio: round(disk.allocated / disk.reference),
      // Only a filesystem that clones can keep ten copies in the room of one.
      ...(disk.cloned ? { target: '≤ 1' } : {}),
    });
    const tinyDisk = await tenWorktrees(dir, workspaceId);
    const real = realPackagesSetup();
    const realRepo = await repository(root, 'repo-real', {
      worktreeYaml: `setup: |\n${real.script.replace(/^/gm, '  ')}\ncache:\n  key: [package-lock.json]\n  paths: [node_modules]\n`,
    });
    const realDisk = await tenWorktrees(realRepo, await register(realRepo));

    // `pool: 1` committed (the same cache key: the pool's worktree is restored from it), seen at the pool's next look.
    await writeFile(join(dir, '.svc', 'worktree.yaml'), `${WORKTREE_YAML}pool: 1\n`);
    git(dir, ...IDENTITY, 'commit', '-qam', 'pool: 1');
    const pools = [];
    for (const files of [5, 1000, 3000]) {
      const repo = files === 5 ? dir : await repository(root, `repo-${files}`, { trackedFiles: files - 5, pool: 1 });
      const workspace = files === 5 ? workspaceId : await register(repo);
      const bareRepo = await repository(root, `repo-bare-${files}`, { setup: false, trackedFiles: files - 5 });
      pools.push({ files, ...(await warmPool(repo, workspace, { repo: bareRepo, workspace: await register(bareRepo) })) });
    }
    const poolRow = (measured) => ({
      name: `pool: request → first node with a warm pool (the 10,000-file setup prepared ahead), ${measured.files.toLocaleString('en')} tracked files ÷ git worktree add of the repository (ms)`,
      value: round(measured.ms, 1),
      unit: 'ms',
      reference: round(measured.raw, 1),
      ratio: round(measured.ms / measured.raw),
      target: '≤ 1.2',
    });
    // The issue's "bar today": the same workflow with no setup at all, against the same raw add.
    const bareRow = (measured) => ({
      name: `no setup: request → first node, ${measured.files.toLocaleString('en')} tracked files and no .svc/worktree.yaml ÷ git worktree add of the repository (ms)`,
      value: round(measured.plain, 1),
      unit: 'ms',
      reference: round(measured.rawPlain, 1),
      ratio: round(measured.plain / measured.rawPlain),
    });
    const small = pools[0];
    return [
      ...pools.flatMap((measured) => [poolRow(measured), bareRow(measured)]),
      {
        name: 'pool: request → first node with a warm pool (5 tracked files) ÷ the same workflow on a repository with no setup at all (ms)',
        value: round(small.ms, 1),
        unit: 'ms',
        reference: round(small.plain, 1),
        ratio: round(small.ms / small.plain),
        target: '≤ 1.1',
      },
      {
        name: `setup cache: request → first node, cache hit of a 10,000-file tree (${filesystem}: ${how}) ÷ git worktree add + cp -r (ms)`,
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
      diskRow(tinyDisk, `a tree of 10,000 tiny files`),
      diskRow(realDisk, `${real.files.toLocaleString('en')} files of real packages (${round(real.bytes / 1e6, 1)} MB)`),
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
