// What one run costs the file store (issue 22, docs/decisions.md, "Fewer writes between two nodes"), counted on the real
// server, never timed: the fsyncs are its lifecycle transitions and nothing else, and the run's
// record is written at most once per scheduling round (rounds less than 10 ms apart share one)
// plus its transitions.
import { readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, eventTypes, projectWithWorkflows, onCleanup, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

/** The FileHandle class is not exported: its prototype is taken from a handle. */
async function fileHandlePrototype(): Promise<object> {
  const handle = await open(join(await tempDir(), 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as object;
}

type Handle = { fd: number };
type HandleMethods = { sync(this: Handle): Promise<void>; writeFile(this: Handle, data: unknown): Promise<void> };

/** Every file fsynced, and every file written whole, through a FileHandle while `fn` runs, by path, in order. */
async function fileWrites(fn: () => Promise<void>): Promise<{ synced: string[]; written: string[] }> {
  const proto = (await fileHandlePrototype()) as HandleMethods;
  const { sync, writeFile } = proto;
  // Read at the call: the descriptor is closed (and its number reused) soon after.
  const pathOf = (handle: Handle) => readlinkSync(`/proc/self/fd/${handle.fd}`);
  const synced: string[] = [];
  const written: string[] = [];
  proto.sync = function (this: Handle) {
    synced.push(pathOf(this));
    return sync.call(this);
  };
  proto.writeFile = function (this: Handle, data: unknown) {
    written.push(pathOf(this));
    return writeFile.call(this, data);
  };
  try {
    await fn();
  } finally {
    Object.assign(proto, { sync, writeFile });
  }
  return { synced, written };
}

afterEach(cleanupAll);

/** How often a chain's record was written whole (through its temp file) while it ran to its end; its fsyncs are checked here. */
async function recordWrites(nodes: number, bash: string): Promise<{ written: number }> {
  const project = await projectWithWorkflows([
    {
      name: 'chain',
      nodes: Array.from({ length: nodes }, (_, i) => ({ id: `n${i}`, bash, ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}) })),
    },
  ]);
  const server = await startServer();
  onCleanup(() => server.stop());
  let runId = '';
  const { synced, written } = await fileWrites(async () => {
    runId = await startRun(server, 'chain', { message: '', cwd: project });
    // Its end event follows the end's write (the status alone is seen before the write lands).
    await waitForRun(server, runId, (run) => eventTypes(run).includes('run_completed'));
  });
  const data = join(server.home, 'data');
  const inData = (paths: string[]) => paths.map((path) => relative(data, path).replace(/\.[0-9a-f]{8}\.tmp$/, '.tmp'));
  const record = `runs/${runId}/.record.json.tmp`;
  // Created (the 202), started, ended: the worker conversation's record is not among them.
  expect(inData(synced)).toEqual([record, record, record]);
  // The worker conversation is still written, only not fsynced.
  expect(inData(written).some((path) => path.startsWith('conversations/'))).toBe(true);
  return { written: inData(written).filter((path) => path === record).length };
}

describe('what a run costs the file store', () => {
  it('fsyncs only its lifecycle transitions, and writes its record once per round plus those', async () => {
    // Nodes far longer than the rounds' least interval (10 ms): every round has its own write.
    const nodes = 4;
    const { written } = await recordWrites(nodes, 'sleep 0.05');
    // The three transitions, and one round write per node of a chain (each starts the next node,
    // the last one's outcome goes with the run's end).
    expect(written).toBe(nodes + 3);
  });

  it('rounds of quick nodes share record writes, never more than one each', async () => {
    const nodes = 12;
    const { written } = await recordWrites(nodes, 'true');
    // Rounds less than 10 ms apart share one (how many do depends on the machine's speed).
    expect(written).toBeGreaterThanOrEqual(3 + 1);
    expect(written).toBeLessThanOrEqual(nodes + 3);
  });
});
