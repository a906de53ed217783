// A check running for ever (docs/decisions.md, "Pull request reactions"): a failed check waits for
// one still running (IN_PROGRESS), so one that never ends would hold the reaction back unseen. Past
// SVC_PR_CHECK_STUCK_MS (here 5 s) running on the same head commit, the pull request needs a person,
// the check named with how long; one event, no run. A queued or waiting check is never stuck
// (stuck-waiting.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getRun, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import {
  ACTIONS_RUN,
  checkRun,
  failedJobLog,
  FIX_CI,
  followOns,
  givenLooks,
  grownRun,
  openPullRequest,
  waitForPull,
  type FakeGh,
  pullServer,
} from './fixture.js';
import { stuckReason } from '../../src/pulls/stuck.js';

const STUCK_MS = 5000;
let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer({ SVC_PR_CHECK_STUCK_MS: String(STUCK_MS) }));
});

afterAll(cleanupAll);

const needsHumanEvents = (run: Json) => (run.events as Array<{ type: string }>).filter((e) => e.type === 'needs_human');

describe('a check stuck pending', () => {
  it('running past the bound while another failed: a person is asked, naming it and how long; one event, no run', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI]);
    gh.edit((state) => {
      state.logs[ACTIONS_RUN] = failedJobLog();
    });
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun(null, 'e2e'), checkRun('FAILURE', 'test')] });
    // Seen pending, held back: the failure waits for the running check, nobody is asked yet.
    const waiting = await waitForPull(server, run.id, (r) => r.pr?.checks.length === 2);
    const e2e = waiting.pr.checks.find((c: { name: string }) => c.name === 'e2e');
    expect(e2e).toMatchObject({ state: 'pending', pendingSince: expect.any(String) });
    expect(waiting.pr.reactions).toEqual([]);

    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true && needsHumanEvents(r).length > 0, 20_000);
    expect(asked.needsHumanReason).toMatch(/^check e2e \(pending for \d+s\) on [0-9a-f]{40} stuck: pending longer than 5s \(SVC_PR_CHECK_STUCK_MS\)/);
    expect(Date.now() - Date.parse(e2e.pendingSince)).toBeGreaterThanOrEqual(STUCK_MS);
    // Asked once; the failure behind it never became a run.
    await givenLooks(gh, number, 4);
    const after = await getRun(server, run.id);
    expect(needsHumanEvents(after)).toHaveLength(1);
    expect(after.pr.reactions).toEqual([]);
    expect(await followOns(server, run.id)).toHaveLength(0);
  });

  it('a check that finished before the bound is no longer pending: nothing is asked, the failure gets its run', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI]);
    gh.edit((state) => {
      state.logs[ACTIONS_RUN] = failedJobLog();
    });
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [{ ...checkRun(null, 'e2e'), status: 'QUEUED' }] });
    await waitForPull(server, run.id, (r) => r.pr?.checks[0]?.state === 'pending');
    gh.pull(number, (pull) => {
      pull.defaultChecks = [checkRun('SUCCESS', 'e2e'), checkRun('FAILURE', 'test')];
    });
    const started = await waitForPull(server, run.id, (r) => r.pr?.reactions.length === 1);
    expect(started.needsHuman).toBeUndefined();
    expect(started.pr.checks.every((c: { pendingSince?: string }) => c.pendingSince === undefined)).toBe(true);
  });
});

describe('stuckReason', () => {
  const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + ms).toISOString();
  const pending = (name: string, since: number) => ({ name, state: 'pending' as const, url: null, pendingSince: at(since) });

  it('names every check pending the bound or longer, with how long, and none pending less', () => {
    const follow = {
      headCommit: 'abc',
      checks: [pending('slow', 0), pending('fresh', 5 * 3600_000), pending('hung', 3600_000), { name: 'ok', state: 'success' as const, url: null }],
    };
    expect(stuckReason(follow, new Date(at(6 * 3600_000 + 1500)), 5 * 3600_000)).toBe(
      'checks slow (pending for 6h1s), hung (pending for 5h1s) on abc stuck: pending longer than 5h (SVC_PR_CHECK_STUCK_MS); no run was started — re-run or cancel it on GitHub',
    );
    expect(stuckReason(follow, new Date(at(5 * 3600_000)), 6 * 3600_000)).toBeNull();
  });
});
