// "A state change of one run must cost the same with 10 or 10,000 runs stored" (issue 2). Asserted
// on what is touched on disk, never on time: a write of one run record replaces exactly one file.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { openFileStore, type FileStore } from '../../src/store/index.js';

interface Run {
  id: string;
  status: string;
  workflow: string;
  nodes: Record<string, { status: string }>;
}

type Snapshot = Map<string, string>;

/** Every file and folder under `dir`, with what would change if it were written or replaced. */
async function snapshot(dir: string): Promise<Snapshot> {
  const result: Snapshot = new Map();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    const key = relative(dir, path);
    result.set(key, entry.isDirectory() ? 'dir' : `${info.ino}:${info.size}:${info.mtimeMs}`);
  }
  return result;
}

/** Paths created, removed or changed between two snapshots (folders count only when created or removed). */
function touched(before: Snapshot, after: Snapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

const homes: string[] = [];
const stores: FileStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/** A store with `count` runs already written (and reopened, as after a restart). */
async function storeWithRuns(count: number): Promise<{ store: FileStore; data: string }> {
  const home = await mkdtemp(join(tmpdir(), 'svc-cost-'));
  homes.push(home);
  let store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
  const runs = await store.collection<Run>('runs', 'per-record');
  const batch: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    batch.push(runs.put({ id: `run_${String(i).padStart(5, '0')}`, status: 'completed', workflow: 'w', nodes: { a: { status: 'completed' } } }));
    if (batch.length === 200) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await store.close();
  store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
  stores.push(store);
  return { store, data: join(home, 'data') };
}

/** What one state change of one run, and one appended event, touch on disk. */
async function costOfOneRunChange(count: number) {
  const { store, data } = await storeWithRuns(count);
  const runs = await store.collection<Run>('runs', 'per-record');
  expect(runs.size).toBe(count);
  const events = store.log<{ seq: number }>('events');
  await events.append('run_00003', { seq: 0 });

  let before = await snapshot(data);
  const run = runs.get('run_00003')!;
  await runs.put({ ...run, status: 'running', nodes: { a: { status: 'running' } } });
  const update = touched(before, await snapshot(data));

  before = await snapshot(data);
  await events.append('run_00003', { seq: 1 });
  const append = touched(before, await snapshot(data));

  before = await snapshot(data);
  await runs.put({ id: 'run_new', status: 'pending', workflow: 'w', nodes: {} });
  const insert = touched(before, await snapshot(data));
  return { update, append, insert };
}

describe('the cost of writing one run', () => {
  it('touches exactly the run own file, with 10 runs stored and with 2,000', { timeout: 120_000 }, async () => {
    const small = await costOfOneRunChange(10);
    const large = await costOfOneRunChange(2000);
    expect(small.update).toEqual(['runs/run_00003/record.json']);
    expect(small.append).toEqual(['events/run_00003.jsonl']);
    expect(small.insert).toEqual(['runs/run_new', 'runs/run_new/record.json']);
    // The same, file for file, however many runs exist.
    expect(large).toEqual(small);
  });

  it('whereas a single-file collection rewrites its whole file (why runs are per-record)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-cost-'));
    homes.push(home);
    const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    stores.push(store);
    const small = await store.collection<{ id: string; n: number }>('settings');
    for (let i = 0; i < 50; i++) await small.put({ id: `k${i}`, n: i });
    const data = join(home, 'data');
    const before = await snapshot(data);
    await small.put({ id: 'k1', n: 2 });
    const after = await snapshot(data);
    // One changed record, and the file holding all 50 is replaced as a whole.
    expect(touched(before, after)).toEqual(['settings.json']);
    expect(after.get('settings.json')!.split(':')[1]).toBe(before.get('settings.json')!.split(':')[1]);
  });
});
