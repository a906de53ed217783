// Port rules of docs/contract.md, "Port": PORT strict, a linked git worktree gets
// 3190 + (md5(realpath(cwd))[0..2] as big-endian uint16 mod 900) with fallbacks in 3190–4089, else 3090.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/listen.js';
import { DEFAULT_PORT, isLinkedWorktree, planPort, worktreeFallbacks, worktreePort } from '../../src/server/port.js';
import { loadSettings } from '../../src/shared/settings.js';

const run = promisify(execFile);

/** The contract's formula, written out independently of the implementation. */
function expectedPort(path: string): number {
  const digest = createHash('md5').update(path).digest();
  return 3190 + (((digest[0]! << 8) | digest[1]!) % 900);
}

describe('worktreePort', () => {
  it('follows the formula for any path', () => {
    const paths = ['/', '/tmp/a', '/home/dev/project-wt-1', '/home/dev/project-wt-2', '/srv/äöü/unicode', `/x/${'deep/'.repeat(40)}`];
    for (let i = 0; i < 200; i++) paths.push(`/work/checkout-${i}`);
    for (const path of paths) {
      const port = worktreePort(path);
      expect(port, path).toBe(expectedPort(path));
      expect(port).toBeGreaterThanOrEqual(3190);
      expect(port).toBeLessThanOrEqual(4089);
    }
    // Known values, so a change of hash or byte order cannot go unnoticed.
    expect(worktreePort('/tmp/a')).toBe(3190 + (0x4a95 % 900)); // 3383
    expect(createHash('md5').update('/tmp/a').digest('hex').slice(0, 4)).toBe('4a95');
  });

  it('spreads distinct checkouts over the range', () => {
    const ports = new Set(Array.from({ length: 300 }, (_, i) => worktreePort(`/work/checkout-${i}`)));
    expect(ports.size).toBeGreaterThan(200);
  });
});

describe('worktreeFallbacks', () => {
  it('lists the rest of 3190–4089 in order after the port, wrapping, without the port itself', () => {
    for (const port of [3190, 3191, 3640, 4088, 4089]) {
      const fallbacks = worktreeFallbacks(port);
      expect(fallbacks).toHaveLength(899);
      expect(fallbacks).not.toContain(port);
      expect(new Set(fallbacks).size).toBe(899);
      expect(new Set([port, ...fallbacks]).size).toBe(900);
      for (const p of fallbacks) expect(p >= 3190 && p <= 4089).toBe(true);
      expect(fallbacks[0]).toBe(port === 4089 ? 3190 : port + 1);
      expect(fallbacks[898]).toBe(port === 3190 ? 4089 : port - 1);
      // Consecutive, modulo the wrap.
      fallbacks.forEach((p, i) => expect(p).toBe(3190 + ((port - 3190 + i + 1) % 900)));
    }
  });
});

describe('planPort with real git checkouts', () => {
  let root: string;
  let main: string;
  let worktree: string;
  const git = (cwd: string, ...args: string[]) =>
    run('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=test', '-c', 'init.defaultBranch=main', ...args], { cwd, timeout: 20_000 });

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'svc-port-')));
    main = join(root, 'main');
    worktree = join(root, 'linked wt');
    await mkdir(main);
    await git(main, 'init', '-q');
    await writeFile(join(main, 'README'), 'x\n');
    await git(main, 'add', 'README');
    await git(main, 'commit', '-q', '-m', 'init');
    await git(main, 'worktree', 'add', '-q', '-b', 'feature', worktree);
    await mkdir(join(worktree, 'sub'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('gives a linked worktree its formula port inside 3190–4089, with the fallbacks', async () => {
    expect(await isLinkedWorktree(worktree)).toBe(true);
    const plan = await planPort(undefined, worktree);
    expect(plan.kind).toBe('worktree');
    expect(plan.port).toBe(expectedPort(worktree));
    expect(plan.port).toBeGreaterThanOrEqual(3190);
    expect(plan.port).toBeLessThanOrEqual(4089);
    if (plan.kind === 'worktree') expect(plan.fallbacks).toEqual(worktreeFallbacks(plan.port));
  });

  it('hashes the real path: a symlinked way into the worktree gets the same port', async () => {
    const { symlink } = await import('node:fs/promises');
    const link = join(root, 'link-to-wt');
    await symlink(worktree, link);
    const plan = await planPort(undefined, link);
    expect(plan).toMatchObject({ kind: 'worktree', port: expectedPort(worktree) });
  });

  it('treats a subfolder of a worktree as inside the worktree', async () => {
    const sub = join(worktree, 'sub');
    const plan = await planPort(undefined, sub);
    expect(plan).toMatchObject({ kind: 'worktree', port: expectedPort(sub) });
  });

  it('uses the default 3090 in the main checkout and outside git', async () => {
    expect(await isLinkedWorktree(main)).toBe(false);
    expect(await planPort(undefined, main)).toEqual({ kind: 'default', port: DEFAULT_PORT });
    expect(DEFAULT_PORT).toBe(3090);
    const plain = await mkdtemp(join(tmpdir(), 'svc-nogit-'));
    try {
      expect(await planPort(undefined, plain)).toEqual({ kind: 'default', port: 3090 });
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('an explicit port wins everywhere', async () => {
    expect(await planPort(4567, worktree)).toEqual({ kind: 'explicit', port: 4567 });
    expect(await planPort(0, main)).toEqual({ kind: 'explicit', port: 0 });
  });

  describe('startServer in a worktree', () => {
    let blocker: Server | undefined;
    let running: RunningServer | undefined;
    const homes: string[] = [];
    afterEach(async () => {
      await running?.close();
      running = undefined;
      await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
      blocker = undefined;
      for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
    });

    it('moves to another port of the range when the worktree port is busy', async () => {
      const preferred = expectedPort(worktree);
      // Occupy the preferred port (if someone else already does, the test holds all the same).
      blocker = createServer();
      await new Promise<void>((resolve) => {
        blocker!.once('error', () => resolve());
        blocker!.listen(preferred, '127.0.0.1', () => resolve());
      });
      const home = await mkdtemp(join(tmpdir(), 'svc-test-'));
      homes.push(home);
      running = await startServer({ settings: loadSettings({ SVC_HOME: home, SVC_LOG_LEVEL: 'error' }), cwd: worktree });
      expect(running.port).not.toBe(preferred);
      expect(running.port).toBeGreaterThanOrEqual(3190);
      expect(running.port).toBeLessThanOrEqual(4089);
      expect((await fetch(`${running.url}/health`)).status).toBe(200);
    });
  });
});
