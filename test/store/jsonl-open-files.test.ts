// A log keeps the files it appends to open for the next append (store/jsonl-log.ts): one write per
// group of lines instead of an open, a write and a close; never more than a bounded number open;
// none left open once a key is removed or the log is closed. Counted on /proc/self/fd.
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { openJsonlLog } from '../../src/store/jsonl-log.js';
import { waitFor } from '../helpers/runs.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The files under `root` this process holds open now. */
function openUnder(root: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(root)) open.push(target);
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return open.sort();
}

it('appends through one open file per key, at most 16 at once, all closed by remove and close', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-jsonl-open-'));
  const path = (key: string) => join(dir!, `${key}.jsonl`);
  const log = openJsonlLog<{ n: number }>(path, silentLogger);

  for (let n = 0; n < 5; n++) await log.append('a', { n });
  expect(openUnder(dir)).toEqual([path('a')]);
  expect((await readFile(path('a'), 'utf8')).trim().split('\n')).toHaveLength(5);

  for (let key = 0; key < 20; key++) await log.append(`k${key}`, { n: key });
  // A file past the limit is closed right after its append (the close itself is asynchronous).
  const open = await waitFor(
    () => {
      const files = openUnder(dir!);
      return files.length <= 16 ? files : undefined;
    },
    1000,
    () => `files open under ${dir}: ${openUnder(dir!).length}`,
  );
  expect(open.length).toBeLessThanOrEqual(16);
  // The most recently written are the ones kept.
  expect(open).toContain(path('k19'));
  expect(open).not.toContain(path('a'));
  // A key whose file was closed is written again through a new one, after what it had.
  await log.append('a', { n: 5 });
  expect((await log.read('a')).map((entry) => entry.n)).toEqual([0, 1, 2, 3, 4, 5]);

  await log.remove('k19');
  expect(openUnder(dir)).not.toContain(path('k19'));
  await log.close();
  expect(openUnder(dir)).toEqual([]);
  // An append after the close still lands, and leaves nothing open.
  await log.append('late', { n: 1 });
  expect((await log.read('late')).map((entry) => entry.n)).toEqual([1]);
  expect(openUnder(dir)).toEqual([]);
});

it('an append asked while its key is removed never writes to the removed file: the next one makes a new file', async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-jsonl-open-'));
  const path = (key: string) => join(dir!, `${key}.jsonl`);
  const log = openJsonlLog<{ n: number }>(path, silentLogger);
  await log.append('a', { n: 0 });
  const removed = log.remove('a');
  const during = log.append('a', { n: 1 }); // lands before or after the removal: either is fine
  await Promise.all([removed, during]);
  await log.append('a', { n: 2 });
  const entries = (await log.read('a')).map((entry) => entry.n);
  expect(entries.at(-1)).toBe(2);
  expect(entries).not.toContain(0);
  // What is open for the key is the file on disk now, not a removed one.
  expect(openUnder(dir).filter((target) => target.endsWith('(deleted)'))).toEqual([]);
  await log.close();
});
