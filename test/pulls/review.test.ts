// A followed pull request whose review asks for changes (docs/decisions.md, "Pull request
// reactions"): the unresolved comments go to one follow-on run, its result is pushed, each comment
// gets one reply; the same review seen again starts nothing, svc's own replies are never taken for
// comments, a resolved thread is left alone, and a comment added while the follow-on run works is
// handled by the next one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, getRun, waitForStatus } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import { ADDRESS_REVIEW, reviewComment, checkRun, FIX_CI, followOns, gated, givenLooks, grownRun, openPullRequest, waitForPull, type FakeGh, pullServer } from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer());
});

afterAll(cleanupAll);

// Ids past 2^31, as github.com's are.
const comment = (id: number, path: string, line: number, body: string) => reviewComment(String(3_000_000_000 + id), path, line, body);
const idOf = (id: number) => String(3_000_000_000 + id);

describe('changes requested', () => {
  it('one follow-on run addresses both comments, two replies; the same review again starts nothing', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const number = await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      threads: [
        { isResolved: false, comments: [comment(101, 'src/math.js', 3, 'Use a const here.')] },
        { isResolved: false, comments: [comment(102, 'README.md', 1, 'Say what widgets are.')] },
        { isResolved: true, comments: [comment(103, 'src/old.js', 9, 'Settled already.')] },
      ],
    });
    const pushed = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushed');
    const [reaction] = pushed.pr.reactions;
    expect(reaction).toMatchObject({ kind: 'review', comments: [idOf(101), idOf(102)], workflow: 'address-review' });
    const followOn = await getRun(server, reaction.followOnRunId);
    expect(followOn.message).toContain(`Comment ${idOf(101)} on src/math.js:3 by reviewer`);
    expect(followOn.message).toContain('Use a const here.');
    expect(followOn.message).toContain(`Comment ${idOf(102)} on README.md:1`);
    expect(followOn.message).not.toContain('Settled already.');
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(followOn.headCommit);
    const replies = gh.replies(number);
    expect(replies.map((r) => r.inReplyTo)).toEqual([idOf(101), idOf(102)]);
    expect(replies[0]!.body).toContain(`svc run ${followOn.id}`);
    const changes = pushed.events.filter((e: { type: string }) => e.type === 'pr_changes_requested');
    expect(changes).toHaveLength(1);
    expect(changes[0].comments).toEqual([
      { id: idOf(101), path: 'src/math.js', line: 3 },
      { id: idOf(102), path: 'README.md', line: 1 },
    ]);

    // The review still says CHANGES_REQUESTED, and its threads now hold svc's replies: nothing new to do.
    await givenLooks(gh, number, 6);
    const after = await getRun(server, run.id);
    expect(after.pr.reactions).toHaveLength(1);
    expect(gh.replies(number)).toHaveLength(2);
    expect(await followOns(server, run.id)).toHaveLength(1);
  });

  it('a comment added while the follow-on run works is handled by the next one', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, gated(ADDRESS_REVIEW)]);
    const number = await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      threads: [{ isResolved: false, comments: [comment(201, 'src/a.js', 1, 'First.')] }],
    });
    const first = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'running');
    const firstRun = first.pr.reactions[0].followOnRunId;
    await waitForStatus(server, firstRun, 'paused');
    gh.pull(number, (pull) => {
      pull.threads.push({ isResolved: false, comments: [comment(202, 'src/b.js', 2, 'Arrived meanwhile.')] });
    });
    await givenLooks(gh, number, 3);
    expect((await getRun(server, run.id)).pr.reactions).toHaveLength(1);
    expect((await api(server, 'POST', `/api/workflows/runs/${firstRun}/approve`, {})).status).toBe(200);

    const second = await waitForPull(server, run.id, (r) => r.pr?.reactions[1]?.state === 'running');
    expect(second.pr.reactions[0]).toMatchObject({ state: 'pushed', comments: [idOf(201)] });
    expect(second.pr.reactions[1]).toMatchObject({ comments: [idOf(202)] });
    const secondRun = second.pr.reactions[1].followOnRunId;
    expect((await getRun(server, secondRun)).fromRunId).toBe(firstRun);
    expect((await getRun(server, secondRun)).message).toContain('Arrived meanwhile.');
    await waitForStatus(server, secondRun, 'paused');
    expect((await api(server, 'POST', `/api/workflows/runs/${secondRun}/approve`, {})).status).toBe(200);
    await waitForPull(server, run.id, (r) => r.pr?.reactions[1]?.state === 'pushed');
    expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(201), idOf(202)]);
  });
});
