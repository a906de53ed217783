import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJsonlLog } from '../../src/store/jsonl-log.js';
import { silentLogger } from '../../src/shared/logger.js';

/** A burst of appends to one key is written in a few group commits, in order, and nothing is lost. */
describe('JSONL group commit', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps call order across batches and resolves each append once its line is on disk', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-jsonl-'));
    const path = (key: string) => join(dir!, `${key}.jsonl`);
    const log = openJsonlLog<{ n: number }>(path, silentLogger);
    const seenOnDisk: number[] = [];
    const appends = Array.from({ length: 2000 }, (_, n) =>
      log.append('run', { n }).then(async () => {
        if (n % 250 === 0) {
          const lines = (await readFile(path('run'), 'utf8')).trim().split('\n');
          if (lines.length > n) seenOnDisk.push(n);
        }
      }),
    );
    await Promise.all(appends);
    const entries = await log.read('run');
    expect(entries.map((e) => e.n)).toEqual(Array.from({ length: 2000 }, (_, n) => n));
    // Every sampled append found its own line (and all before it) already written when it resolved.
    // (The sampled reads finish in any order.)
    expect(seenOnDisk.sort((a, b) => a - b)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750]);
  });

  it('keeps keys apart and serves reads after queued writes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-jsonl-'));
    const log = openJsonlLog<{ k: string; n: number }>((key) => join(dir!, `${key}.jsonl`), silentLogger);
    const writes = [];
    for (let n = 0; n < 50; n++) writes.push(log.append('a', { k: 'a', n }), log.append('b', { k: 'b', n }));
    const readA = log.read('a');
    await Promise.all(writes);
    expect((await readA).length).toBeGreaterThan(0);
    expect((await log.read('a')).map((e) => e.n)).toEqual([...Array(50).keys()]);
    expect((await log.read('b')).every((e) => e.k === 'b')).toBe(true);
  });
});
