// Copying a cached tree (tree-copy.ts): a folder of many entries is dealt out to several cp
// processes; what they leave is what one `cp -a` leaves — every file with its bytes, mode and
// times, symlinks as links, hidden entries, the folder's own mode and times — and a copy of its
// own: changing it changes nothing of the source. A folder of very many entries never goes past the
// kernel's limit on a command line, and one whose names are not all UTF-8 is copied byte for byte.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { copyTree } from '../../src/workspaces/tree-copy.js';
import { tempDir } from '../helpers/runs.js';

let root: string;

/** Every path under `dir` with what identifies it: kind, mode, bytes or link target, mtime. */
async function listing(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    const info = lstatSync(path);
    const what = info.isSymbolicLink() ? `link→${readlinkSync(path)}` : info.isDirectory() ? 'dir' : `file:${readFileSync(path, 'utf8')}`;
    found[relative(dir, path)] = `${what} mode=${(info.mode & 0o7777).toString(8)} mtime=${Math.floor(info.mtimeMs)}`;
  }
  return found;
}

/** A node_modules-like folder: `count` packages, a hidden file, an executable, a link, old times. */
function makeTree(dir: string, count: number): void {
  mkdirSync(join(dir, '.bin'), { recursive: true });
  for (let i = 0; i < count; i++) {
    mkdirSync(join(dir, `pkg-${i}`, 'lib'), { recursive: true });
    writeFileSync(join(dir, `pkg-${i}`, 'lib', 'index.js'), `module.exports = ${i};\n`);
    writeFileSync(join(dir, `pkg-${i}`, 'package.json'), `{"name":"pkg-${i}"}\n`);
  }
  writeFileSync(join(dir, 'pkg-0', 'cli.js'), '#!/usr/bin/env node\n');
  chmodSync(join(dir, 'pkg-0', 'cli.js'), 0o755);
  symlinkSync('../pkg-0/cli.js', join(dir, '.bin', 'pkg-0'));
  writeFileSync(join(dir, '.package-lock.json'), '{}\n');
  const old = new Date('2024-01-02T03:04:05Z');
  for (const path of ['pkg-1/lib/index.js', 'pkg-1/lib', 'pkg-1']) utimesSync(join(dir, path), old, old);
  chmodSync(dir, 0o750);
  utimesSync(dir, old, old);
}

beforeEach(async () => {
  root = await tempDir('svc-tree-copy-');
});

describe('copyTree', () => {
  it.each([
    ['a folder of many entries, in lanes', 40],
    ['a folder of few entries, in one cp', 3],
  ])('%s: the copy is the source, file for file, and its own', async (_, count) => {
    const source = join(root, 'source');
    makeTree(source, count);
    const target = join(root, 'worktree', 'node_modules');
    await copyTree(source, target);
    expect(await listing(target)).toEqual(await listing(source));
    const top = lstatSync(target);
    expect((top.mode & 0o7777).toString(8)).toBe('750');
    expect(top.mtime.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    expect(lstatSync(join(target, '.bin', 'pkg-0')).isSymbolicLink()).toBe(true);

    // The copy is its own: a run that deletes and edits in it leaves the source whole.
    const before = await listing(source);
    await rm(join(target, 'pkg-2'), { recursive: true, force: true });
    writeFileSync(join(target, 'pkg-0', 'lib', 'index.js'), 'changed\n');
    expect(await listing(source)).toEqual(before);
  });

  it('copies a folder of very many entries, none past the limit of a command line', async () => {
    // A cache key's path is long: <home>/workspaces/<id>/cache/<key>/tree/<path>.
    const source = join(root, 'cache', 'a'.repeat(64), 'tree', 'node_modules');
    mkdirSync(source, { recursive: true });
    const count = 30_000;
    for (let i = 0; i < count; i++) writeFileSync(join(source, `some-package-name-${i}`), '');
    const target = join(root, 'worktree', 'node_modules');
    await copyTree(source, target);
    expect((await readdir(target)).length).toBe(count);
  }, 120_000);

  it('copies an entry whose name is not UTF-8 under that name', async () => {
    const source = join(root, 'node_modules');
    mkdirSync(source);
    for (let i = 0; i < 20; i++) writeFileSync(join(source, `pkg-${i}`), '');
    // "café" in Latin-1: its last byte alone is no UTF-8.
    const latin1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9])]);
    writeFileSync(Buffer.concat([Buffer.from(`${source}/`), latin1]), 'latin-1 name\n');
    const target = join(root, 'worktree', 'node_modules');
    await copyTree(source, target);
    const names = readdirSync(target, { encoding: 'buffer' });
    expect(names.length).toBe(21);
    expect(names.some((name) => name.equals(latin1))).toBe(true);
  });
});
