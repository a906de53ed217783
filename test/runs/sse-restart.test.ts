// Last-Event-ID after a server restart: a dashboard left open reconnects to the next server with
// the position it last saw, and must get what it missed, though this server published none of it.
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../helpers/sse-client.js';
import { makeHome } from '../helpers/server.js';
import { cleanupAll, getRun, projectWithWorkflows, startRun, startServer, waitForRun, type Json } from '../helpers/runs.js';

afterAll(cleanupAll);

describe('replay on a restarted server', () => {
  it('replays the events an earlier server stored, before this one has published anything', async () => {
    const project = await projectWithWorkflows([
      {
        name: 'two',
        nodes: [
          { id: 'a', bash: 'echo alpha' },
          { id: 'b', bash: 'echo beta', depends_on: ['a'] },
        ],
      },
    ]);
    const home = await makeHome();
    const first = await startServer({ socket: true, home });
    const runId = await startRun(first, 'two', { message: '', cwd: project });
    await waitForRun(first, runId);
    const stored = (await getRun(first, runId)).events as Json[];
    await first.stop({ keepHome: true });

    const second = await startServer({ socket: true, home });
    // `lastEventId=0` replays the run from its start (docs/decisions.md, "Streams")…
    const whole = await connect(second, `/api/stream/__dashboard__?runId=${runId}&lastEventId=0`);
    await whole.until((events) => events.length === stored.length, 5_000);
    expect(whole.events).toEqual(stored);
    // …and a reconnect's Last-Event-ID replays what came after it.
    const rest = await connect(second, '/api/stream/__dashboard__', { lastEventId: String(stored[1]!.pos) });
    await rest.until((events) => events.length === stored.length - 2, 5_000);
    expect(rest.events).toEqual(stored.slice(2));
  });
});
