// A check waiting, not running, is never stuck (docs/decisions.md, "Pull request reactions"): by the
// checks rule only a running check holds failures back, so only a running one counts towards
// SVC_PR_CHECK_STUCK_MS. A deployment waiting for its approval past the bound does not make the pull
// request need a person, and a reviewer's requested changes still get their reaction.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanupAll } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { ADDRESS_REVIEW, checkRun, FIX_CI, grownRun, openPullRequest, pullServer, reviewComment, waitForPull, type FakeGh } from './fixture.js';

const STUCK_MS = 3000;
let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer({ SVC_PR_CHECK_STUCK_MS: String(STUCK_MS) }));
});
afterAll(cleanupAll);

it('a deployment waiting for its approval does not stop a review from being answered', async () => {
  const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
  const waitingDeploy = { ...checkRun(null, 'deploy-preview'), status: 'WAITING' };
  const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('SUCCESS', 'test'), waitingDeploy] });
  await waitForPull(server, run.id, (r) => r.pr?.checks.length === 2);
  await new Promise((resolve) => setTimeout(resolve, STUCK_MS + 500));
  gh.pull(number, (pull) => {
    pull.reviewDecision = 'CHANGES_REQUESTED';
    pull.threads = [{ isResolved: false, comments: [reviewComment(String(3_000_000_801), 'src/a.js', 1, 'Rename this.')] }];
  });
  const after = await waitForPull(server, run.id, (r) => r.needsHuman === true || r.pr?.reactions.length > 0, 20_000);
  expect(after.needsHumanReason ?? null).toBeNull();
  expect(after.pr.reactions[0]).toMatchObject({ kind: 'review' });
}, 90_000);
