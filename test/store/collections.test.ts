// The file store's collections and logs survive a reopen; a torn JSONL line is skipped.
import { appendFile, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, silentLogger, type LogFields } from '../../src/shared/logger.js';
import { openFileStore, type FileStore } from '../../src/store/index.js';

interface Item {
  id: string;
  n: number;
  tags?: string[];
}

let home: string;
const open: FileStore[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-store-'));
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close().catch(() => {});
  await rm(home, { recursive: true, force: true });
});

async function openStore(options: { lock?: 'server' | 'cli' | false; logger?: typeof silentLogger } = {}): Promise<FileStore> {
  const store = await openFileStore({ home, logger: options.logger ?? silentLogger, lock: options.lock ?? 'cli' });
  open.push(store);
  return store;
}

async function reopen(store: FileStore, options: Parameters<typeof openStore>[0] = {}): Promise<FileStore> {
  await store.close();
  open.splice(open.indexOf(store), 1);
  return openStore(options);
}

describe.each(['single', 'per-record'] as const)('a %s collection', (layout) => {
  it('round-trips puts, replacements and deletes across a reopen', async () => {
    let store = await openStore();
    let items = await store.collection<Item>('things', layout);
    expect(items.size).toBe(0);
    for (let i = 0; i < 25; i++) await items.put({ id: `item_${i}`, n: i, tags: [`t${i}`, 'ünïcødé "quoted"\n'] });
    await items.put({ id: 'item_3', n: 333 });
    expect(await items.delete('item_7')).toBe(true);
    expect(await items.delete('item_missing')).toBe(false);

    store = await reopen(store);
    items = await store.collection<Item>('things', layout);
    expect(items.size).toBe(24);
    expect(items.get('item_3')).toEqual({ id: 'item_3', n: 333 });
    expect(items.get('item_7')).toBeUndefined();
    expect(items.get('item_4')).toEqual({ id: 'item_4', n: 4, tags: ['t4', 'ünïcødé "quoted"\n'] });
    expect(items.find((item) => item.n === 10)?.id).toBe('item_10');
    expect(
      items
        .filter((item) => item.n >= 20 && item.n < 100)
        .map((item) => item.id)
        .sort(),
    ).toEqual(['item_20', 'item_21', 'item_22', 'item_23', 'item_24']);
    expect(items.all()).toHaveLength(24);
  });

  it('keeps the last of many un-awaited writes of one record, and flush() waits for all', async () => {
    let store = await openStore();
    const items = await store.collection<Item>('burst', layout);
    const writes = Array.from({ length: 100 }, (_, i) => items.put({ id: 'same', n: i }));
    for (let i = 0; i < 30; i++) void items.put({ id: `other_${i}`, n: i });
    await store.flush();
    await Promise.all(writes);
    store = await reopen(store);
    const back = await store.collection<Item>('burst', layout);
    expect(back.get('same')).toEqual({ id: 'same', n: 99 });
    expect(back.size).toBe(31);
  });

  it('is readable without the lock, and refuses writes when opened read-only', async () => {
    const writer = await openStore();
    await (await writer.collection<Item>('ro', layout)).put({ id: 'a', n: 1 });
    // A reader (lock: false) can open while the writer holds the lock.
    const reader = await openStore({ lock: false });
    const items = await reader.collection<Item>('ro', layout);
    expect(items.get('a')).toEqual({ id: 'a', n: 1 });
    await expect(items.put({ id: 'b', n: 2 })).rejects.toThrow(/read-only/);
    await expect(items.delete('a')).rejects.toThrow(/read-only/);
    await expect(reader.log('ro-log').append('k', {})).rejects.toThrow(/read-only/);
  });
});

describe('collections', () => {
  it('are kept apart by name, and lay out files as documented', async () => {
    const store = await openStore();
    await (await store.collection<Item>('alpha')).put({ id: 'x', n: 1 });
    await (await store.collection<Item>('beta', 'per-record')).put({ id: 'run_1', n: 2 });
    expect((await store.collection<Item>('alpha')).get('x')?.n).toBe(1);
    expect((await store.collection<Item>('beta', 'per-record')).get('x')).toBeUndefined();
    expect(JSON.parse(await readFile(join(home, 'data', 'alpha.json'), 'utf8'))).toEqual({ items: { x: { id: 'x', n: 1 } } });
    expect(JSON.parse(await readFile(join(home, 'data', 'beta', 'run_1', 'record.json'), 'utf8'))).toEqual({ id: 'run_1', n: 2 });
  });

  it('reject invalid names', async () => {
    const store = await openStore();
    expect(() => store.collection('../escape')).toThrow(/Invalid collection name/);
    expect(() => store.collection('Upper')).toThrow();
    expect(() => store.log('a/b')).toThrow(/Invalid log name/);
  });

  it('a per-record collection skips a folder without a readable record instead of failing', async () => {
    let store = await openStore();
    const runs = await store.collection<Item>('runs', 'per-record');
    await runs.put({ id: 'run_ok', n: 1 });
    await store.flush();
    await appendFile(join(home, 'data', 'runs', 'stray-file.txt'), 'not a folder');
    await writeFile(join(home, 'data', 'runs', 'run_ok', '.record.json.abcd1234.tmp'), '{"id":"run_ok","n":');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(home, 'data', 'runs', 'run_half'), { recursive: true });
    await mkdir(join(home, 'data', 'runs', 'run_torn'), { recursive: true });
    await writeFile(join(home, 'data', 'runs', 'run_torn', 'record.json'), '{"id":"run_torn",');
    const warnings: Array<[string, LogFields | undefined]> = [];
    const logger = { ...silentLogger, warn: (event: string, fields?: LogFields) => void warnings.push([event, fields]) };
    store = await reopen(store, { logger });
    const back = await store.collection<Item>('runs', 'per-record');
    expect(back.all()).toEqual([{ id: 'run_ok', n: 1 }]);
    expect(warnings.map(([event]) => event)).toEqual(['store.record_unreadable']);
  });

  it('a single-file collection whose file is corrupt fails to open with a clear message', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(home, 'data'), { recursive: true });
    await writeFile(join(home, 'data', 'broken.json'), '{"items":');
    const store = await openStore();
    await expect(store.collection('broken')).rejects.toThrow(/broken\.json cannot be read/);
  });
});

describe('JSONL logs', () => {
  it('append and read in order, per key, across a reopen; remove deletes one key', async () => {
    let store = await openStore();
    let events = store.log<{ seq: number; text: string }>('events');
    await Promise.all(Array.from({ length: 50 }, (_, seq) => events.append(seq % 2 ? 'run_b' : 'run_a', { seq, text: `line\nwith newline ${seq}` })));
    expect((await events.read('run_a')).map((e) => e.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i * 2));
    store = await reopen(store);
    events = store.log('events');
    expect((await events.read('run_b')).map((e) => e.seq)).toEqual(Array.from({ length: 25 }, (_, i) => i * 2 + 1));
    expect(await events.read('run_none')).toEqual([]);
    await events.remove('run_a');
    expect(await events.read('run_a')).toEqual([]);
    expect((await events.read('run_b')).length).toBe(25);
    expect(await readFile(join(home, 'data', 'events', 'run_b.jsonl'), 'utf8')).toMatch(/^(\{[^\n]*\}\n){25}$/);
  });

  it('skip a torn last line (logged), and the next append starts on a fresh line', async () => {
    let store = await openStore();
    const events = store.log<{ seq: number }>('events');
    for (let seq = 0; seq < 3; seq++) await events.append('run_x', { seq });
    await store.close();
    open.splice(open.indexOf(store), 1);
    // A crash mid-append: half a line, no newline.
    const file = join(home, 'data', 'events', 'run_x.jsonl');
    await appendFile(file, '{"seq":3,"text":"cut off he');

    const logged: Array<{ event: string; fields?: LogFields }> = [];
    const logger = createLogger({ level: 'debug', stderr: { write: () => true } });
    const spy = { ...logger, warn: (event: string, fields?: LogFields) => void logged.push({ event, fields: fields ?? {} }) };
    store = await openStore({ logger: spy });
    const reopened = store.log<{ seq: number }>('events');
    expect((await reopened.read('run_x')).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(logged).toEqual([{ event: 'store.torn_line_skipped', fields: { file, line: 4 } }]);

    await reopened.append('run_x', { seq: 4 });
    await reopened.append('run_x', { seq: 5 });
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines).toEqual(['{"seq":0}', '{"seq":1}', '{"seq":2}', '{"seq":3,"text":"cut off he', '{"seq":4}', '{"seq":5}', '']);
    expect((await reopened.read('run_x')).map((e) => e.seq)).toEqual([0, 1, 2, 4, 5]);
  });

  it('leave no stray files beside the data', async () => {
    const store = await openStore();
    const items = await store.collection<Item>('things', 'per-record');
    const single = await store.collection<Item>('config');
    for (let i = 0; i < 20; i++) {
      void items.put({ id: `r${i % 4}`, n: i });
      void single.put({ id: 's', n: i });
      void store.log('events').append(`r${i % 4}`, { i });
    }
    await store.flush();
    const all = await readdir(join(home, 'data'), { recursive: true });
    expect(all.filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
