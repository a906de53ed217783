// A person's go-on to a pull request that needs one (docs/decisions.md, "Resuming a pull request
// that needs a person"): `svc runs pr <run> --resume [--max-fix-cycles N]` (`POST …/pr/resume`)
// clears needs_human, records who on a `pr_resumed` event, and reactions start again by themselves,
// counted afresh — the head's failed check gets a new reaction even if one answered it before, the
// comments a failed reaction was given go to the next — and a raised bound applies from then on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, eventTypes, getRun, type Json, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { expectErrorBody } from '../helpers/error-body.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { resumePatch } from '../../src/pulls/resume.js';
import { follow } from '../store/contract/pulls.js';
import { checkRun, FIX_CI, followOns, givenLooks, grownRun, openPullRequest, reviewComment, waitForPull, type FakeGh, pullServer } from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer({}, { socket: true }));
});

afterAll(cleanupAll);

const svc = (...args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });
const resumed = (run: Json) => (run.events as Json[]).filter((e) => e.type === 'pr_resumed');
const FAILING_FIX: Workflow = { name: 'fix-ci', nodes: [{ id: 'fix', bash: 'exit 1' }] };
const FAILING_REVIEW: Workflow = { name: 'address-review', nodes: [{ id: 'address', bash: 'exit 1' }] };

describe('svc runs pr --resume', () => {
  it('past max_fix_cycles: show says how to go on; --resume --max-fix-cycles 2 makes two more reactions, then a person is asked again', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI], { max_fix_cycles: 1 });
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('FAILURE')] });
    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true);
    expect(asked.needsHumanReason).toContain('1 reaction already (max_fix_cycles 1)');
    const shown = await svc('runs', 'show', run.id);
    expect(shown.stdout).toContain(`            to go on: svc runs pr ${run.id} --resume [--max-fix-cycles N]\n`);

    const answer = await svc('runs', 'pr', run.id.slice(0, 16), '--resume', '--max-fix-cycles', '2');
    expect(answer.stderr).toBe('');
    expect(answer.code).toBe(0);
    expect(answer.stdout).toBe(
      `Resumed pull request #${number} (https://github.com/me/widgets/pull/${number}): svc reacts to it again by itself, at most 2 more times.\n`,
    );
    // The event follows the record: waited for too.
    const again = await waitForPull(
      server,
      run.id,
      (r) => r.needsHuman === true && r.pr.reactions.length === 3 && eventTypes(r).filter((t) => t === 'needs_human').length === 2,
      60_000,
    );
    expect(again.needsHumanReason).toContain('2 reactions since the last resume (max_fix_cycles 2)');
    expect(again.pr).toMatchObject({ maxFixCycles: 2, countedFrom: 1 });
    expect(again.pr.reactions.map((r: Json) => r.state)).toEqual(['pushed', 'pushed', 'pushed']);
    const [event] = resumed(again);
    expect(resumed(again)).toHaveLength(1);
    expect(event).toMatchObject({ number, by: 'cli', maxFixCycles: 2, reason: asked.needsHumanReason });
    expect(eventTypes(again).filter((t) => t === 'needs_human')).toHaveLength(2);
    await givenLooks(gh, number, 3);
    expect((await getRun(server, run.id)).pr.reactions).toHaveLength(3);

    const after = await svc('runs', 'show', run.id);
    expect(after.stdout).toContain(`  reaction: 1 (before the last resume) checks test → fix-ci ${again.pr.reactions[0].followOnRunId} pushed`);
    expect(after.stdout).toContain(`  reaction: 2/2 checks test → fix-ci ${again.pr.reactions[2].followOnRunId} pushed`);
  });

  it("a reaction that failed on the head: resumed, the same head's failed check gets a new reaction (the bound it had)", async () => {
    const { bare, run } = await grownRun(server, [FAILING_FIX]);
    await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('FAILURE')] });
    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true);
    const key = `ci:${run.headCommit}:test`;
    expect(asked.pr.reactions).toMatchObject([{ state: 'failed', key }]);

    const answer = await api(server, 'POST', `/api/workflows/runs/${run.id}/pr/resume`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ maxFixCycles: 3, countedFrom: 1 });
    const again = await waitForPull(server, run.id, (r) => r.needsHuman === true && r.pr.reactions.length === 2);
    expect(again.pr.reactions).toMatchObject([
      { state: 'failed', key },
      { state: 'failed', key },
    ]);
    expect(resumed(again)).toEqual([expect.objectContaining({ by: 'api', maxFixCycles: 3 })]);
    expect(await followOns(server, run.id)).toHaveLength(2);
  });

  it('a review reaction that failed: resumed, its comments, still unresolved, go to the next reaction', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, FAILING_REVIEW]);
    const id = '3000000701';
    await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      threads: [{ isResolved: false, comments: [reviewComment(id, 'src/a.js', 1, 'Rename it.')] }],
    });
    await waitForPull(server, run.id, (r) => r.needsHuman === true);
    expect((await api(server, 'POST', `/api/workflows/runs/${run.id}/pr/resume`, { maxFixCycles: 1 })).status).toBe(200);
    const again = await waitForPull(server, run.id, (r) => r.needsHuman === true && r.pr.reactions.length === 2);
    expect(again.pr.reactions.map((r: Json) => r.comments)).toEqual([[id], [id]]);
  });
});

describe('POST /api/workflows/runs/{runId}/pr/resume refuses', () => {
  it('409 for a run without a followed pull request or one that needs nobody, 404 for an unknown run, 400 for a bad body', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI]);
    const path = `/api/workflows/runs/${run.id}/pr/resume`;
    const unfollowed = await api(server, 'POST', path, {});
    expect(unfollowed.status).toBe(409);
    expectErrorBody(unfollowed.body, 'pr_not_followed');

    await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('SUCCESS')] });
    await waitForPull(server, run.id, (r) => r.pr?.checks[0]?.state === 'success');
    const fine = await api(server, 'POST', path, {});
    expect(fine.status).toBe(409);
    expectErrorBody(fine.body, 'not_needs_human');

    const unknown = await api(server, 'POST', '/api/workflows/runs/run_nosuchrun/pr/resume', {});
    expect(unknown.status).toBe(404);
    expectErrorBody(unknown.body, 'run_not_found');
    for (const body of [{ maxFixCycles: 0 }, { maxFixCycles: 21 }, { maxFixCycles: 1.5 }, { maxFixCycles: '2' }, { cycles: 2 }]) {
      const bad = await api(server, 'POST', path, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expectErrorBody(bad.body, 'invalid_request');
    }

    // The CLI refuses what cannot be meant before asking the server; the server's refusal exits 1 with its words.
    expect((await svc('runs', 'pr', run.id, '--max-fix-cycles', '2')).code).toBe(2);
    expect((await svc('runs', 'pr', run.id, '--resume', '--max-fix-cycles', '0')).code).toBe(2);
    expect((await svc('runs', 'pr', run.id, '--resume', '--title', 'x')).code).toBe(2);
    const refused = await svc('runs', 'pr', run.id, '--resume');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('does not need a person');
  });
});

describe('resumePatch', () => {
  it("hands back only the comments of reactions that failed since the last resume, and restarts a pending check's count", () => {
    const reaction = (followOnRunId: string, state: 'pushed' | 'failed', comments: string[]) => ({
      key: `review:${comments.join(',')}`,
      kind: 'review' as const,
      commit: 'abc',
      checks: [],
      comments,
      workflow: 'address-review',
      followOnRunId,
      fromRunId: 'run_a',
      message: 'm',
      state,
      replied: [],
      pushedCommit: null,
      error: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: null,
    });
    // Resumed once after the first (failed) one: its comment went to the second, which pushed; the third failed.
    const before = follow('run_a', {
      countedFrom: 1,
      reactions: [reaction('run_1', 'failed', ['1']), reaction('run_2', 'pushed', ['1', '2']), reaction('run_3', 'failed', ['3'])],
      handledComments: ['1', '2', '3'],
      checks: [
        { name: 'e2e', state: 'pending', url: null, pendingSince: '2026-01-01T00:00:00.000Z' },
        { name: 'test', state: 'failure', url: null },
      ],
      needsHuman: 'its follow-on run run_3 ended failed',
    });
    const now = new Date('2026-01-02T00:00:00.000Z');
    expect(resumePatch(before, undefined, now)).toEqual({
      needsHuman: null,
      countedFrom: 3,
      maxFixCycles: 3,
      handledComments: ['1', '2'],
      checks: [{ ...before.checks[0], pendingSince: now.toISOString() }, before.checks[1]],
    });
    expect(resumePatch(before, 7, now).maxFixCycles).toBe(7);
  });
});
