// A followed pull request whose check fails (docs/decisions.md, "Pull request reactions"), played by
// the stand-in gh against a real bare `origin`: one follow-on run told the check, its URL, the
// failing step and an excerpt around the first error line (not the log's tail), its commits pushed
// to the pull request's branch, the checks green; merged, every worktree of the chain removed. Three
// red cycles ask a person and start no fourth run; a quota failure is reported and starts none.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, eventTypes, getRun, tempDir } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import {
  ACTIONS_RUN,
  ADDRESS_REVIEW,
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
  redPullRequest,
  firstReactionPushed,
} from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer());
});

afterAll(cleanupAll);

describe('a failed check', () => {
  it('starts one follow-on run with the evidence, pushes its result to the branch; green, then merged: the worktrees go', async () => {
    const { bare, run, number } = await redPullRequest(server, gh, [FIX_CI, ADDRESS_REVIEW]);
    const red = run.headCommit;

    const pushed = await firstReactionPushed(server, run.id);
    const [reaction] = pushed.pr.reactions;
    expect(reaction).toMatchObject({ kind: 'ci', checks: ['test'], workflow: 'fix-ci', outcome: 'pushed' });
    const followOn = await getRun(server, reaction.followOnRunId);
    expect(followOn).toMatchObject({ status: 'completed', fromRunId: run.id, outside: 'remote' });
    expect(followOn.message).toContain('Check: test');
    expect(followOn.message).toContain(`URL: https://github.com/me/widgets/actions/runs/${ACTIONS_RUN}/job/222`);
    expect(followOn.message).toContain('Failing step: Run npm test');
    expect(followOn.message).toContain('FAIL src/math.test.js');
    expect(followOn.message).toContain('expected 3, got 4');
    // Context before the error line, and the summary far below it left out.
    expect(followOn.message).toContain('setting up 29');
    expect(followOn.message).not.toContain('summary line 119');
    // The pull request's branch on origin is the follow-on run's head: a fast-forward of the original.
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(followOn.headCommit);
    expect(git(bare, 'merge-base', '--is-ancestor', run.headCommit, followOn.headCommit)).toBe('');

    const green = await waitForPull(server, run.id, (r) => r.pr?.headCommit === followOn.headCommit && r.pr.checks[0]?.state === 'success');
    expect(green.pr.checks).toEqual([{ name: 'test', state: 'success', url: expect.stringContaining('/actions/runs/') }]);
    expect(green.needsHuman).toBeUndefined();
    expect(eventTypes(green)).toEqual(expect.arrayContaining(['pr_check_failed', 'reaction_started', 'reaction_finished']));
    const failedEvent = green.events.find((e: { type: string }) => e.type === 'pr_check_failed');
    expect(failedEvent).toMatchObject({ check: 'test', commit: red, failingStep: 'Run npm test' });
    expect(await followOns(server, run.id)).toHaveLength(1);

    gh.pull(number, (pull) => {
      pull.state = 'MERGED';
    });
    // The event follows the record: waited for too.
    const merged = await waitForPull(server, run.id, (r) => r.pr?.state === 'merged' && r.pr.cleanup !== null && eventTypes(r).includes('pr_merged'));
    expect(merged.pr.cleanup).toEqual([
      { runId: run.id, removed: true },
      { runId: followOn.id, removed: true },
    ]);
    expect(existsSync(run.cwd)).toBe(false);
    expect(existsSync(followOn.cwd)).toBe(false);
    expect(eventTypes(merged)).toContain('pr_merged');
  });

  it('three red cycles: a person is asked, with the reason, and no fourth run starts; closed unmerged, every worktree is kept', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI]);
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('FAILURE')] });
    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true && eventTypes(r).includes('needs_human'), 60_000);
    expect(asked.needsHumanReason).toContain('max_fix_cycles 3');
    expect(asked.pr.reactions.map((r: { state: string }) => r.state)).toEqual(['pushed', 'pushed', 'pushed']);
    // Each cycle answered its own head commit.
    expect(new Set(asked.pr.reactions.map((r: { key: string }) => r.key)).size).toBe(3);
    expect(eventTypes(asked)).toContain('needs_human');
    await givenLooks(gh, number, 6);
    // The chain: each follow-on run followed on from the one before, and the third from none.
    const chain = asked.pr.reactions.map((r: { followOnRunId: string }) => r.followOnRunId);
    for (const [i, from] of [run.id, ...chain].entries()) expect(await followOns(server, from)).toHaveLength(i < 3 ? 1 : 0);
    expect((await getRun(server, run.id)).pr.reactions).toHaveLength(3);

    writeFileSync(join(run.cwd, 'notes.txt'), 'mine\n');
    gh.pull(number, (pull) => {
      pull.state = 'CLOSED';
    });
    const closed = await waitForPull(server, run.id, (r) => r.pr?.cleanup !== null && eventTypes(r).includes('pr_merged'));
    // Closed without merging: nothing of the chain is removed, each said why.
    expect(closed.pr.cleanup).toHaveLength(4);
    for (const kept of closed.pr.cleanup) expect(kept).toMatchObject({ removed: false, reason: expect.stringContaining('closed without merging') });
    expect(existsSync(run.cwd)).toBe(true);
    for (const followOnId of chain) expect(existsSync((await getRun(server, followOnId)).cwd)).toBe(true);
    expect(closed.events.find((e: { type: string }) => e.type === 'pr_merged')).toMatchObject({ merged: false });
  });

  it('a quota failure is reported with its words and starts no run', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI]);
    const quotaRun = '333';
    gh.edit((state) => {
      state.logs[quotaRun] = failedJobLog([
        '##[error]The job was not started because recent account payments have failed or your spending limit needs to be increased.',
      ]);
    });
    const failed = { ...checkRun('FAILURE'), detailsUrl: `https://github.com/me/widgets/actions/runs/${quotaRun}/job/1` };
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [failed] });
    const reported = await waitForPull(server, run.id, (r) => r.pr?.checks[0]?.infrastructure !== undefined);
    expect(reported.pr.checks[0].infrastructure).toContain('spending limit');
    const event = reported.events.find((e: { type: string }) => e.type === 'pr_check_failed');
    expect(event.infrastructure).toContain('spending limit');
    // Given its chance to start one: several more looks at the same red commit.
    await givenLooks(gh, number, 6);
    const after = await getRun(server, run.id);
    expect(after.pr.reactions).toEqual([]);
    expect(after.needsHuman).toBeUndefined();
    expect(await followOns(server, run.id)).toHaveLength(0);
    expect(after.events.filter((e: { type: string }) => e.type === 'pr_check_failed')).toHaveLength(1);
  });

  it('without SVC_GITHUB_WEBHOOK_SECRET, GitHub deliveries are refused (503) and pull requests are polled only', async () => {
    const answer = await server.fetch('/webhooks/github', { method: 'POST', headers: { 'x-github-event': 'check_suite' }, body: '{}' });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ error: 'webhook_secret_missing', message: expect.stringContaining('SVC_GITHUB_WEBHOOK_SECRET') });
  });

  it("seven failed checks of one job: its log fetched once, with --job; five excerpts, the other two named; the follow keeps the message's start", async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const jobRun = '444';
    gh.edit((state) => {
      state.logs[jobRun] = failedJobLog(['FAIL src/many.test.js', ...Array.from({ length: 300 }, (_, i) => `  assertion detail ${i}`)], 'lint');
    });
    const names = Array.from({ length: 7 }, (_, i) => `check-${i}`);
    const failed = names.map((name) => ({ ...checkRun('FAILURE', name), detailsUrl: `https://github.com/me/widgets/actions/runs/${jobRun}/job/555` }));
    const number = await openPullRequest(server, gh, run, bare, { checks: { [run.headCommit]: failed }, defaultChecks: [checkRun('SUCCESS')] });
    const running = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'running' || r.pr?.reactions[0]?.state === 'pushed');
    const [reaction] = running.pr.reactions;
    expect(reaction.checks).toEqual(names.slice(0, 5));
    const message = (await getRun(server, reaction.followOnRunId)).message as string;
    expect(message.match(/^Check: /gm)).toHaveLength(5);
    expect(message).toContain('Also failed (their logs not included; open them on GitHub): check-5, check-6');
    const logCalls = gh.calls().filter((c) => c[0] === 'run' && c[2] === jobRun);
    // Once per look, not once per check (a look that lost a race to another may fetch it again).
    expect(logCalls.length).toBeGreaterThan(0);
    expect(logCalls.length).toBeLessThan(names.length);
    for (const call of logCalls) expect(call).toEqual(expect.arrayContaining(['--job', '555', '--log-failed']));
    // The follow keeps the message's start and its hash; the run has the whole.
    const kept = JSON.parse(readFileSync(join(server.home, 'data', 'pull-follows', run.id, 'record.json'), 'utf8'));
    expect(kept.reactions[0].message.length).toBeLessThan(1200);
    expect(kept.reactions[0].messageSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(number).toBeGreaterThan(0);
  });

  it("a person pushed to the pull request: no run is started on svc's stale head, a person is asked", async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('SUCCESS')] });
    const theirs = join(await tempDir('svc-pr-person-'), 'clone');
    git(dirname(theirs), 'clone', '-q', '-b', `svc/${run.id}`, bare, theirs);
    writeFileSync(join(theirs, 'mine.txt'), 'by hand\n');
    git(theirs, 'add', '-A');
    git(theirs, '-c', 'user.name=P', '-c', 'user.email=p@example.com', 'commit', '-q', '-m', 'by hand');
    git(theirs, 'push', '-q', 'origin', `svc/${run.id}`);
    // Their commit fails its checks: svc's last head is not the pull request's.
    gh.pull(number, (pull) => {
      pull.defaultChecks = [checkRun('FAILURE')];
    });
    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true);
    expect(asked.needsHumanReason).toContain('someone pushed');
    expect(asked.pr.reactions).toEqual([]);
    await givenLooks(gh, number, 2);
    expect(await followOns(server, run.id)).toHaveLength(0);
  });

  it("a pull request whose head is a fork's branch is never pushed to: a person is asked, no run", async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('FAILURE')], crossRepository: 'fork/widgets' });
    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true);
    expect(asked.needsHumanReason).toContain('fork/widgets');
    await givenLooks(gh, number, 2);
    expect(await followOns(server, run.id)).toHaveLength(0);
  });

  it('a check queued for ever does not hold a failure back; ACTION_REQUIRED alone starts no run', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    gh.edit((state) => {
      state.logs[ACTIONS_RUN] = failedJobLog();
    });
    const approval = { ...checkRun('SUCCESS', 'deploy'), conclusion: 'ACTION_REQUIRED' };
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [approval] });
    await givenLooks(gh, number, 3);
    expect((await getRun(server, run.id)).pr.reactions).toEqual([]);
    const queued = { ...checkRun(null, 'e2e'), status: 'QUEUED' };
    gh.pull(number, (pull) => {
      pull.defaultChecks = [approval, queued, checkRun('FAILURE')];
    });
    const started = await waitForPull(server, run.id, (r) => r.pr?.reactions.length === 1);
    expect(started.pr.reactions[0].checks).toEqual(['test']);
  });
});
