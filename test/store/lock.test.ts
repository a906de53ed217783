// One writer per store: the lock file `$SVC_HOME/svc.lock` (issue 2, docs/contract.md, "Without a server").
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { acquireLock, lockPathOf, openFileStore, readLock, StoreLockedError, type FileStore } from '../../src/store/index.js';

const WRITER = fileURLToPath(new URL('../fixtures/store-writer.mjs', import.meta.url));

let home: string;
const children = new Set<ChildProcess>();
const stores: FileStore[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-lock-'));
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => {});
  await Promise.all([...children].map(killAndWait));
  await rm(home, { recursive: true, force: true });
});

function killAndWait(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Another process that takes the lock and keeps it; resolves once it holds it. */
function holdInChild(kind: 'server' | 'cli'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WRITER, 'hold', home, kind], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve(child);
      if (out.startsWith('error')) reject(new Error(out));
    });
    child.once('exit', (code) => reject(new Error(`holder exited ${code}: ${out}`)));
  });
}

/** The pid of a process that has certainly ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

const openWriter = async (kind: 'server' | 'cli' = 'cli') => {
  const store = await openFileStore({ home, logger: silentLogger, lock: kind });
  stores.push(store);
  return store;
};

describe('the store lock', () => {
  it('is held while a writer has the store open and removed on close', async () => {
    const store = await openWriter('server');
    const info = JSON.parse(await readFile(lockPathOf(home), 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, kind: 'server' });
    expect(readLock(home)).toMatchObject({ pid: process.pid, kind: 'server' });
    store.lock!.update({ url: 'http://127.0.0.1:1234' });
    expect(readLock(home)?.url).toBe('http://127.0.0.1:1234');
    await store.close();
    expect(existsSync(lockPathOf(home))).toBe(false);
    expect(readLock(home)).toBeUndefined();
  });

  it('makes a second writer in another process fail with StoreLockedError naming the holder', async () => {
    const holder = await holdInChild('server');
    expect(readLock(home)).toMatchObject({ pid: holder.pid, kind: 'server' });
    const attempt = openFileStore({ home, logger: silentLogger, lock: 'cli' });
    await expect(attempt).rejects.toBeInstanceOf(StoreLockedError);
    await expect(attempt).rejects.toThrow(new RegExp(`svc server \\(pid ${holder.pid}`));
    const error = await attempt.catch((e: StoreLockedError) => e);
    expect((error as StoreLockedError).holder).toMatchObject({ pid: holder.pid, kind: 'server' });
    // A CLI holder is described as such.
    await killAndWait(holder);
    const cli = await holdInChild('cli');
    await expect(openFileStore({ home, logger: silentLogger, lock: 'server' })).rejects.toThrow(new RegExp(`svc command \\(pid ${cli.pid}\\)`));
    // Readers need no lock.
    const reader = await openFileStore({ home, logger: silentLogger, lock: false });
    stores.push(reader);
    expect(reader.lock).toBeUndefined();
  });

  it('makes a second writer in the SAME process fail too, and leaves the first one holding it', async () => {
    const first = await openWriter('server');
    await expect(openFileStore({ home, logger: silentLogger, lock: 'cli' })).rejects.toBeInstanceOf(StoreLockedError);
    expect(() => acquireLock(home, 'cli')).toThrow(StoreLockedError);
    // The failed attempts did not take the lock away from the first writer.
    expect(JSON.parse(await readFile(lockPathOf(home), 'utf8'))).toMatchObject({ pid: process.pid, kind: 'server' });
    await first.close();
    const second = await openWriter('cli');
    expect(readLock(home)).toMatchObject({ kind: 'cli' });
    await second.close();
  });

  it('is taken over when its holder was killed (kill -9 leaves the file behind)', async () => {
    const holder = await holdInChild('server');
    await killAndWait(holder);
    expect(existsSync(lockPathOf(home))).toBe(true);
    expect(readLock(home)).toBeUndefined();
    const store = await openWriter('cli');
    expect(JSON.parse(await readFile(lockPathOf(home), 'utf8'))).toMatchObject({ pid: process.pid, kind: 'cli' });
    expect(store.lock).toBeDefined();
  });

  it('is taken over when it names a dead pid, or is empty or garbage', async () => {
    for (const content of [
      JSON.stringify({ pid: await deadPid(), kind: 'server', startedAt: new Date().toISOString(), url: 'http://127.0.0.1:9' }),
      '',
      '{"pid":',
    ]) {
      await writeFile(lockPathOf(home), content);
      const store = await openWriter('server');
      expect(JSON.parse(await readFile(lockPathOf(home), 'utf8'))).toMatchObject({ pid: process.pid });
      await store.close();
      stores.splice(stores.indexOf(store), 1);
      expect(existsSync(lockPathOf(home))).toBe(false);
    }
  });

  it('is taken over when it names this process but this process does not hold it (pid reuse after a restart)', async () => {
    await writeFile(lockPathOf(home), JSON.stringify({ pid: process.pid, kind: 'server', startedAt: '2020-01-01T00:00:00.000Z' }));
    const store = await openWriter('server');
    expect(JSON.parse(await readFile(lockPathOf(home), 'utf8')).startedAt).not.toBe('2020-01-01T00:00:00.000Z');
    await store.close();
  });

  it('is released when the holding process exits normally', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { openFileStore } from ${JSON.stringify(new URL('../../dist/store/index.js', import.meta.url).href)};
       import { silentLogger } from ${JSON.stringify(new URL('../../dist/shared/logger.js', import.meta.url).href)};
       await openFileStore({ home: ${JSON.stringify(home)}, logger: silentLogger, lock: 'cli' });
       process.stdout.write('held');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.add(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(out).toBe('held');
    expect(code).toBe(0);
    expect(existsSync(lockPathOf(home))).toBe(false);
  });
});
