// $SVC_PORT (docs/decisions.md, "Worktree setup and $SVC_PORT"): each executing run gets a free
// TCP port of its own, in its bash nodes' environment and its agents'; two runs at once never get
// the same one.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, projectWithWorkflows, readJsonLines, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

afterEach(cleanupAll);

/** Whether something can listen on the port now: it was free when handed out, and nothing kept it. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('$SVC_PORT', () => {
  it('gives two runs executing at once different free ports, in bash and in the agent environment', async () => {
    const ports = await tempDir('svc-ports-');
    const logs = await tempDir('svc-port-logs-');
    setProcessEnv({ FAKE_CLAUDE_LOG: join(logs, 'claude.jsonl') });
    const project = await projectWithWorkflows([
      {
        name: 'port',
        nodes: [
          // Each run writes its port, then waits until the other run has written its own: both execute at once.
          {
            id: 'write',
            bash: 'printf %s "$SVC_PORT" > "$ARGUMENTS/$RUN_ID"; for i in $(seq 200); do [ "$(ls "$ARGUMENTS" | wc -l)" -ge 2 ] && exit 0; sleep 0.05; done; exit 1',
          },
          { id: 'agent', prompt: 'serve on port $SVC_PORT', depends_on: ['write'] },
        ],
      },
    ]);
    const server = await startServer();
    const ids = await Promise.all([1, 2].map(() => startRun(server, 'port', { message: ports, cwd: project })));
    const runs = await Promise.all(ids.map((id) => waitForRun(server, id)));
    for (const run of runs) expect(run.status, JSON.stringify(run.nodes)).toBe('completed');

    const written = Object.fromEntries(readdirSync(ports).map((id) => [id, Number(readFileSync(join(ports, id), 'utf8'))]));
    expect(Object.keys(written).sort()).toEqual([...ids].sort());
    const [a, b] = ids.map((id) => written[id]!);
    expect(a).not.toBe(b);
    for (const port of [a!, b!]) {
      expect(Number.isInteger(port) && port > 0 && port < 65536).toBe(true);
      expect(await canListen(port)).toBe(true);
    }
    // The agent got it too, as a variable in its prompt and in its environment.
    const calls = readJsonLines(join(logs, 'claude.jsonl'));
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.envKeys).toContain('SVC_PORT');
    expect(calls.map((call) => call.stdin).sort()).toEqual([`serve on port ${a}`, `serve on port ${b}`].sort());
  });
});
