// What worktrees take on disk (src/workspaces/disk-usage.ts): the same number as `du -sb` on a tree
// with nested directories, an empty file, a symlink out of the tree and one that points nowhere,
// whatever the number of calls in flight; nothing for a directory that is not there.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { directoryBytes, worktreesOnDisk } from '../../src/workspaces/disk-usage.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';

afterEach(cleanupAll);

it('counts every entry as du -sb does, never following a symlink, with any concurrency', async () => {
  const root = join(await tempDir('svc-disk-'), 'tree');
  for (let i = 0; i < 40; i++) {
    const dir = join(root, `d${i % 5}`, `e${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'file.txt'), 'x'.repeat(i * 37));
  }
  writeFileSync(join(root, 'empty'), '');
  symlinkSync('/usr', join(root, 'out'));
  symlinkSync(join(root, 'missing'), join(root, 'dangling'));
  const du = Number(execFileSync('du', ['-sb', root], { encoding: 'utf8' }).split('\t')[0]);
  expect(await directoryBytes(root)).toBe(du);
  expect(await directoryBytes(root, 1)).toBe(du);
  expect(await directoryBytes(join(root, 'nothing-here'))).toBe(0);
  expect(await worktreesOnDisk([root, join(root, 'nothing-here'), join(root, 'empty')])).toEqual({ worktrees: 1, bytes: du });
});
