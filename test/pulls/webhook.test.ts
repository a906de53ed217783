// The same pull request's life driven by GitHub's signed deliveries instead of polling
// (docs/decisions.md, "Pull request reactions"): with a poll interval of an hour, a `check_suite`
// delivery makes svc look at once and react to the red check, a follow-on run's end is pushed at
// once, a `pull_request_review` delivery brings the review's comments, a `pull_request` one the
// merge. A delivery that is not signed with the secret is refused, and one svc has no use for is skipped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getRun } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { SECRET, sign } from '../helpers/webhooks.js';
import {
  reviewComment,
  ACTIONS_RUN,
  ADDRESS_REVIEW,
  checkRun,
  failedJobLog,
  FIX_CI,
  grownRun,
  looksAt,
  openPullRequest,
  waitForPull,
  type FakeGh,
  pullServer,
  firstReactionPushed,
} from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer({ SVC_PR_POLL_MS: String(60 * 60_000), SVC_GITHUB_WEBHOOK_SECRET: SECRET }));
});

afterAll(cleanupAll);

async function deliver(event: string, payload: unknown, secret = SECRET): Promise<{ status: number; body: any }> {
  const body = JSON.stringify(payload);
  const response = await server.fetch('/webhooks/github', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-hub-signature-256': sign(body, secret) },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const repository = { html_url: 'https://github.com/me/widgets', full_name: 'me/widgets' };

describe('GitHub deliveries', () => {
  it('a check_suite delivery starts the reaction at once; a review and a merge come the same way', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    gh.edit((state) => {
      state.logs[ACTIONS_RUN] = failedJobLog();
    });
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun(null)] });
    // Followed: looked at once, its check still running.
    await waitForPull(server, run.id, (r) => r.pr?.checks[0]?.state === 'pending');
    gh.pull(number, (pull) => {
      pull.checks = { [run.headCommit]: [checkRun('FAILURE')] };
      pull.defaultChecks = [checkRun('SUCCESS')];
    });

    expect((await deliver('check_suite', { action: 'completed' }, 'not-the-secret-at-all-0123456789abcdef0123')).status).toBe(401);
    expect(await deliver('ping', { zen: 'Keep it logically awesome.' })).toEqual({ status: 200, body: { skipped: expect.stringContaining('ping') } });
    const suite = { action: 'completed', repository, check_suite: { head_branch: `svc/${run.id}`, pull_requests: [{ number }] } };
    expect(await deliver('check_suite', suite)).toEqual({ status: 202, body: { runs: [run.id] } });
    const pushed = await firstReactionPushed(server, run.id);
    const followOn = await getRun(server, pushed.pr.reactions[0].followOnRunId);
    expect(followOn.message).toContain('Failing step: Run npm test');
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(followOn.headCommit);

    // GitHub tells of the checks of the new head; then of a review asking for changes.
    gh.pull(number, (pull) => {
      pull.reviewDecision = 'CHANGES_REQUESTED';
      pull.threads = [
        { isResolved: false, comments: [reviewComment('3000000301', 'feature.txt', 1, 'Say more.')] },
        { isResolved: false, comments: [reviewComment('3000000302', 'README.md', 1, 'And here.')] },
      ];
    });
    const review = {
      action: 'submitted',
      repository,
      review: { state: 'changes_requested' },
      pull_request: { html_url: `https://github.com/me/widgets/pull/${number}`, head: { ref: `svc/${run.id}` } },
    };
    expect(await deliver('pull_request_review', review)).toEqual({ status: 202, body: { runs: [run.id] } });
    const addressed = await waitForPull(server, run.id, (r) => r.pr?.reactions[1]?.state === 'pushed');
    expect(addressed.pr.reactions[1]).toMatchObject({ kind: 'review', comments: ['3000000301', '3000000302'] });
    expect(addressed.pr.checks).toEqual([expect.objectContaining({ state: 'success' })]);
    expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual(['3000000301', '3000000302']);

    gh.pull(number, (pull) => {
      pull.state = 'MERGED';
    });
    const looks = looksAt(gh, number);
    const closed = {
      action: 'closed',
      repository,
      pull_request: { html_url: `https://github.com/me/widgets/pull/${number}`, head: { ref: `svc/${run.id}` }, merged: true },
    };
    expect((await deliver('pull_request', closed)).status).toBe(202);
    const merged = await waitForPull(server, run.id, (r) => r.pr?.cleanup !== null);
    expect(merged.pr.cleanup.every((c: { removed: boolean }) => c.removed)).toBe(true);
    expect(looksAt(gh, number)).toBeGreaterThan(looks);
    // Followed no more: a delivery about it names no run.
    expect(await deliver('pull_request', closed)).toEqual({ status: 202, body: { runs: [] } });
  });

  it("GitHub's default form-encoded delivery (payload=…) is read once its raw bytes' signature holds", async () => {
    const payload = { action: 'completed', repository, check_suite: { head_branch: 'svc/run_none', pull_requests: [] } };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const post = (signature: string) =>
      server.fetch('/webhooks/github', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'check_suite', 'x-hub-signature-256': signature },
        body,
      });
    const accepted = await post(sign(body, SECRET));
    expect({ status: accepted.status, body: await accepted.json() }).toEqual({ status: 202, body: { runs: [] } });
    expect((await post(sign(body, 'another secret entirely'))).status).toBe(401);
  });
});
