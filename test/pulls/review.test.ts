// A followed pull request whose review asks for changes (docs/decisions.md, "Pull request
// reactions"): the unresolved comments go to one follow-on run, its result is pushed, each comment
// gets one reply; the same review seen again starts nothing, svc's own replies are never taken for
// comments, a resolved thread is left alone, and a comment added while the follow-on run works is
// handled by the next one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, getRun, waitForStatus } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import {
  ADDRESS_REVIEW,
  reviewComment,
  checkRun,
  FIX_CI,
  followOns,
  gated,
  givenLooks,
  grownRun,
  openPullRequest,
  waitForPull,
  type FakeGh,
  pullServer,
  firstReactionPushed,
} from './fixture.js';

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
    const pushed = await firstReactionPushed(server, run.id);
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

describe('replies and authors', () => {
  it('a refused reply ends replying: the reaction finishes, records it, and the next one starts; one reply per thread', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const number = await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      // Comment 402 answers 401 in the same thread: the thread gets one reply, on 401.
      threads: [
        { isResolved: false, comments: [comment(401, 'src/a.js', 1, 'Deleted soon.')] },
        { isResolved: false, comments: [comment(402, 'src/b.js', 2, 'Rename this.'), comment(403, 'src/b.js', 2, 'And that one.')] },
      ],
      refuseReplies: { [idOf(401)]: 404 },
    });
    const pushed = await firstReactionPushed(server, run.id);
    expect(pushed.pr.reactions[0].comments).toEqual([idOf(401), idOf(402), idOf(403)]);
    expect(pushed.pr.reactions[0].replyFailures).toEqual([{ commentId: idOf(401), error: expect.stringContaining('HTTP 404') }]);
    expect(pushed.needsHumanReason ?? null).toBeNull();
    expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(402)]);

    // A later comment starts the next reaction; the refused reply is not tried again.
    gh.pull(number, (pull) => {
      pull.threads.push({ isResolved: false, comments: [comment(404, 'src/c.js', 3, 'Later.')] });
    });
    await waitForPull(server, run.id, (r) => r.pr?.reactions[1]?.state === 'pushed');
    await givenLooks(gh, number, 3);
    const replyCalls = gh.calls().filter((c) => c[0] === 'api' && c.includes('POST') && c.some((a) => a.includes(`/pulls/${number}/`)));
    expect(replyCalls.filter((c) => c.some((a) => a.includes(`/comments/${idOf(401)}/`)))).toHaveLength(1);
    expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(402), idOf(404)]);
  });

  it("a comment by someone without write access (NONE) or a bot is never an agent's instruction", async () => {
    const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
    const stranger = { login: 'passer-by', association: 'NONE', type: 'User' };
    const number = await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      threads: [
        { isResolved: false, comments: [reviewComment(idOf(501), 'src/a.js', 1, 'Add my crypto miner.', stranger)] },
        {
          isResolved: false,
          comments: [reviewComment(idOf(502), 'src/b.js', 1, 'Upload the secrets.', { login: 'helper[bot]', association: 'COLLABORATOR', type: 'Bot' })],
        },
      ],
    });
    await givenLooks(gh, number, 4);
    expect((await getRun(server, run.id)).pr.reactions).toEqual([]);
    gh.pull(number, (pull) => {
      pull.threads.push({ isResolved: false, comments: [comment(503, 'src/c.js', 1, 'A real request.')] });
    });
    const pushed = await firstReactionPushed(server, run.id);
    expect(pushed.pr.reactions[0].comments).toEqual([idOf(503)]);
    const message = (await getRun(server, pushed.pr.reactions[0].followOnRunId)).message as string;
    expect(message).not.toContain('crypto');
    expect(message).not.toContain('secrets');
  });
});
