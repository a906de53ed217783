// A look that changes what the run's page shows of its pull request — its state, head, a check, or
// whether gh answered — is announced on the run's stream (`pr_updated`), once per change: before it,
// a check turning green after a push (no reaction, no other event) stayed red on an open page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, eventTypes, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { checkRun, givenLooks, grownRun, openPullRequest, pullServer, waitForPull, type FakeGh } from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer());
});

afterAll(cleanupAll);

const updates = (run: Json) =>
  (run.events as Json[]).filter((e) => e.type === 'pr_updated').map(({ state, commit, checks, lookFailed }) => ({ state, commit, checks, lookFailed }));

describe('pr_updated', () => {
  it('says each change a look saw, once: a check running, gh failing, the check passed, the merge', async () => {
    const { bare, run } = await grownRun(server, []);
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun(null)] });
    const running = { state: 'open', commit: run.headCommit, checks: { pending: 1 }, lookFailed: false };
    await waitForPull(server, run.id, (r) => updates(r).length === 1);
    // Nothing changed since: nothing more is said.
    await givenLooks(gh, number, 3);
    expect(updates(await waitForPull(server, run.id, () => true))).toEqual([running]);

    gh.pull(number, (pull) => {
      pull.failView = true;
    });
    await waitForPull(server, run.id, (r) => updates(r).length === 2);
    await givenLooks(gh, number, 3);
    gh.pull(number, (pull) => {
      pull.failView = false;
      pull.defaultChecks = [checkRun('SUCCESS'), checkRun('SUCCESS', 'lint')];
    });
    await waitForPull(server, run.id, (r) => updates(r).length === 3);
    gh.pull(number, (pull) => {
      pull.state = 'MERGED';
    });
    const merged = await waitForPull(server, run.id, (r) => eventTypes(r).includes('pr_merged'));
    expect(updates(merged)).toEqual([
      running,
      { ...running, lookFailed: true },
      { ...running, checks: { success: 2 } },
      { ...running, state: 'merged', checks: { success: 2 } },
    ]);
  });
});
