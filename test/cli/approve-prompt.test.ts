// Issue 32: the approve picker exited 13 (Node's "unsettled top-level await", undocumented) when
// stdin closed while it asked. It exits 2 now, saying what to give instead, and approves nothing; a
// cancel (Esc) exits 3. The picker runs on an in-memory terminal (as `svc chat`'s test does), its
// stdin ended by the test, against a real server on a socket.
import type { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../../src/cli/main.js';
import { testIO, type TestIO } from '../../src/cli/test-io.js';
import { cleanupAll, getRun, projectWithWorkflows, startRun, startServer, waitFor, waitForStatus } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let cwd: string;

beforeAll(async () => {
  server = await startServer({ socket: true });
  cwd = await projectWithWorkflows([{ name: 'gate', nodes: [{ id: 'ask', approval: { message: 'ship?' } }] }]);
});
afterAll(cleanupAll);

/** `svc approve` (no id) on a terminal where prompts may ask, and what it shows. */
function approveOnTerminal(): { io: TestIO; screen(): string; done: Promise<number> } {
  const io = testIO({ env: { PATH: process.env.PATH, SVC_HOME: server.home }, tty: true, canPrompt: true });
  let screen = '';
  io.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  return { io, screen: () => screen, done: runSvc(['--url', server.url, 'approve'], io) };
}

describe('svc approve, asking which run', () => {
  it('stdin closed while it asks: exit 2 with what to give instead, nothing approved', async () => {
    const id = await startRun(server, 'gate', { message: 'first', cwd });
    await waitForStatus(server, id, 'paused');
    const { io, screen, done } = approveOnTerminal();
    await waitFor(
      () => screen().includes('Which run do you want to approve?'),
      10_000,
      () => screen(),
    );
    (io.stdin as PassThrough).end();
    expect(await done).toBe(2);
    expect(io.stderrText()).toBe('svc: stdin closed before an answer; give the run id: svc approve <run>\n');
    expect((await getRun(server, id)).status).toBe('paused');
  });

  it('Esc: exit 3, cancelled', async () => {
    const id = await startRun(server, 'gate', { message: 'second', cwd });
    await waitForStatus(server, id, 'paused');
    const { io, screen, done } = approveOnTerminal();
    await waitFor(
      () => screen().includes('Which run do you want to approve?'),
      10_000,
      () => screen(),
    );
    (io.stdin as PassThrough).write('\u001b');
    expect(await done).toBe(3);
    expect(io.stderrText()).toBe('svc: Cancelled.\n');
    expect((await getRun(server, id)).status).toBe('paused');
  });
});
