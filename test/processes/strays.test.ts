// Processes that leave their group (docs/decisions.md, "Node processes": processes that leave their group): a
// leader that starts a child in a session of its own (as Gemini CLI's node-pty shells are, or
// `setsid`) — stopping the group, on a timeout, a cancel or the recovery of a crashed server,
// stops that child too, even one that ignores SIGTERM; and a group whose tree left nothing behind
// is stopped as before.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killOrphanGroup, processStartTime, spawnGroup } from '../../src/processes/index.js';
import { cleanupAll, isAlive, killQuietly, liveGroupMembers, onCleanup, readPidFile, tempDir, waitForDeath } from '../helpers/runs.js';

afterAll(cleanupAll);

/** A node leader that starts `sleep 300` in a new session (`detached`), its pid in `file`, and waits. */
async function leaderWithEscapee(options: { ignoreTerm?: boolean } = {}) {
  const dir = await tempDir('svc-strays-');
  const file = join(dir, 'escaped.pid');
  const trap = options.ignoreTerm ? "trap '' TERM; " : '';
  const script = `require('node:child_process').spawn('sh', ['-c', ${JSON.stringify(`${trap}echo $$ > ${file}; exec sleep 300`)}], { detached: true, stdio: 'ignore' }); setInterval(() => {}, 1000);`;
  const leader = spawnGroup(process.execPath, ['-e', script], { cwd: dir, env: process.env });
  const escaped = await readPidFile(file);
  onCleanup(() => killQuietly(escaped, 'sleep'));
  // It really left: its group is its own, and a kill of the leader's group would miss it.
  expect(liveGroupMembers(leader.child.pid!)).not.toContain(escaped);
  return { leader, escaped };
}

describe('stopping a process group stops what its tree started outside it', () => {
  it('terminate: the escaped child ends with the group', async () => {
    const { leader, escaped } = await leaderWithEscapee();
    await leader.terminate();
    await waitForDeath(escaped, 10_000);
    expect(isAlive(escaped)).toBe(false);
  });

  it('terminate: an escaped child that ignores SIGTERM is killed after the grace', async () => {
    const { leader, escaped } = await leaderWithEscapee({ ignoreTerm: true });
    await leader.terminate(300);
    await waitForDeath(escaped, 10_000);
    expect(isAlive(escaped)).toBe(false);
  });

  it("a crashed server's successor (killOrphanGroup) kills the escaped child with the group", async () => {
    const { leader, escaped } = await leaderWithEscapee();
    const pid = leader.child.pid!;
    expect(killOrphanGroup(pid, processStartTime(pid))).toBe(true);
    await waitForDeath(escaped, 10_000);
    await waitForDeath(pid, 10_000);
    expect(isAlive(escaped)).toBe(false);
  });

  it('a group whose tree stayed in it is stopped as before', async () => {
    const dir = await tempDir('svc-strays-');
    const leader = spawnGroup('sh', ['-c', 'sleep 300 & echo $! > child.pid; wait'], { cwd: dir, env: process.env });
    const child = await readPidFile(join(dir, 'child.pid'));
    await leader.terminate();
    await waitForDeath(child, 10_000);
    expect(liveGroupMembers(leader.child.pid!)).toEqual([]);
  });
});
