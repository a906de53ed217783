// writeFileAtomic (src/shared/atomic-file.ts) makes a missing folder only when the open fails for
// it (issue 22: one file-system round trip less per write); the file still lands whole either way.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/shared/atomic-file.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-atomic-'));
  dirs.push(dir);
  return dir;
};

describe('writeFileAtomic', () => {
  it('creates missing folders on the way, durably or not', async () => {
    const dir = await tempDir();
    await writeFileAtomic(join(dir, 'a', 'b', 'record.json'), '{"x":1}');
    await writeFileAtomic(join(dir, 'c', 'record.json'), '{"y":2}', { sync: false });
    expect(await readFile(join(dir, 'a', 'b', 'record.json'), 'utf8')).toBe('{"x":1}');
    expect(await readFile(join(dir, 'c', 'record.json'), 'utf8')).toBe('{"y":2}');
  });

  it('replaces a file in an existing folder and leaves no temp file behind', async () => {
    const dir = await tempDir();
    const file = join(dir, 'record.json');
    await writeFile(file, 'old');
    for (let i = 0; i < 5; i++) await writeFileAtomic(file, `new ${i}`, { sync: i % 2 === 0 });
    expect(await readFile(file, 'utf8')).toBe('new 4');
    expect(await readdir(dir)).toEqual(['record.json']);
  });

  it('fails as before when the path is not writable for another reason, leaving nothing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'file'), 'x');
    // A file where a folder should be: ENOTDIR, not retried as a missing folder.
    await expect(writeFileAtomic(join(dir, 'file', 'record.json'), 'y')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await readdir(dir)).toEqual(['file']);
  });
});
