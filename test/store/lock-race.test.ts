import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

/** Uses the built store (`npm test` builds first), in separate processes as real CLIs would be. */
const LOCK_MODULE = fileURLToPath(new URL('../../dist/store/lock.js', import.meta.url));

const contender = (home: string) => `
  const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)});
  try {
    const lock = acquireLock(${JSON.stringify(home)}, 'cli');
    console.log('won');
    setTimeout(() => lock.release(), 4000);
  } catch (error) {
    console.log(error.name === 'StoreLockedError' ? 'lost' : 'error ' + error.message);
  }
`;

let home: string | undefined;
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

it('of many processes taking over one stale lock at once, exactly one wins', async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-lock-race-'));
  // A lock left by a process that is gone.
  const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(home, 'svc.lock'), JSON.stringify({ pid: Number(dead), kind: 'server', startedAt: new Date().toISOString() }));
  const outcomes = await Promise.all(
    Array.from(
      { length: 8 },
      () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', contender(home!)], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
          child.on('exit', () => resolve(out.trim()));
        }),
    ),
  );
  expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
  expect(outcomes.filter((o) => o === 'lost')).toHaveLength(7);
}, 30_000);
