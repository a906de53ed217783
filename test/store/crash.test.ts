// Crash safety: a process writing the store continuously is `kill -9`'d at random moments, again
// and again; every time the store reopens, loads, and still holds every write it had confirmed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { openFileStore } from '../../src/store/index.js';

const WRITER = fileURLToPath(new URL('../fixtures/store-writer.mjs', import.meta.url));
const ROUNDS = 8;

interface Settled {
  id: string;
  i: number;
}

let home: string;
let child: ChildProcess | undefined;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-crash-'));
});
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/**
 * Starts the writer at index `from`, lets it run for a random while after it is ready, then
 * SIGKILLs it. Resolves with the last index it confirmed (`from - 1` when it confirmed none).
 */
function runAndKill(from: number, runMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [WRITER, 'write', home, String(from)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    let err = '';
    let lastAck = from - 1;
    let timer: NodeJS.Timeout | undefined;
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') timer = setTimeout(() => proc.kill('SIGKILL'), runMs);
        const match = /^ack (\d+)$/.exec(line);
        if (match) lastAck = Number(match[1]);
      }
    });
    proc.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer ended by itself (${code ?? signal}): ${err}`));
      else resolve(lastAck);
    });
  });
}

describe('kill -9 while writing', () => {
  it(`leaves a store that loads with every confirmed write, ${ROUNDS} times over`, { timeout: 120_000 }, async () => {
    let next = 0;
    let confirmedTotal = 0;
    // The newest confirmed index per record, and every confirmed event, over all rounds so far.
    const confirmedSetting = new Map<string, number>();
    const confirmedRun = new Map<string, number>();
    const confirmedEvents: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Random moments, spread from right after start-up to well into the writing.
      const from = next;
      const lastAck = await runAndKill(from, 20 + Math.floor(Math.random() * 400));
      for (let i = from; i <= lastAck; i++) {
        confirmedSetting.set(`k${i % 20}`, i);
        confirmedRun.set(`run_${i % 30}`, i);
        confirmedEvents.push(i);
      }
      confirmedTotal += lastAck - from + 1;

      // Reopen as the next writer would: the dead writer's lock is stale and is taken over.
      const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
      try {
        const settings = await store.collection<Settled>('settings');
        const runs = await store.collection<Settled & { status: string }>('runs', 'per-record');
        const events = store.log<{ seq: number }>('events');

        // Every confirmed write is there (a later, unconfirmed one may have landed too).
        for (const [id, i] of confirmedSetting) expect(settings.get(id)?.i ?? -1, `settings ${id}`).toBeGreaterThanOrEqual(i);
        for (const [id, i] of confirmedRun) expect(runs.get(id)?.i ?? -1, id).toBeGreaterThanOrEqual(i);
        const seqs = new Set<number>();
        for (let key = 0; key < 5; key++) {
          for (const entry of await events.read(`run_${key}`)) {
            expect(entry.seq % 5).toBe(key);
            seqs.add(entry.seq);
          }
        }
        for (const i of confirmedEvents) expect(seqs.has(i), `event ${i}`).toBe(true);
        // What was in flight at the kill may or may not be there, but nothing beyond it.
        for (const seq of seqs) expect(seq).toBeLessThanOrEqual(lastAck + 1);
        for (const record of [...settings.all(), ...runs.all()]) expect(record.i).toBeLessThanOrEqual(lastAck + 1);
        next = Math.max(lastAck, ...seqs) + 1;
      } finally {
        await store.close();
      }
    }
    // The kills did land while writing: rounds confirmed writes and left work in flight.
    expect(confirmedTotal).toBeGreaterThan(0);

    // A last writer after all those crashes still works normally, and starts lines afresh.
    const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    try {
      await store.log('events').append('run_0', { seq: 1_000_000 });
      const entries = await store.log<{ seq: number }>('events').read('run_0');
      expect(entries.at(-1)?.seq).toBe(1_000_000);
    } finally {
      await store.close();
    }
    // Temporary files of interrupted atomic writes may remain; they are never mistaken for data.
    const files = await readdir(join(home, 'data'), { recursive: true });
    expect(files.filter((f) => f.endsWith('record.json')).length).toBeLessThanOrEqual(30);
  });
});
