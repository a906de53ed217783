// A reply posted just before a stop is not posted again (docs/decisions.md, "Pull request
// reactions"): GitHub took it, svc stopped before recording it; the next start finds it in its thread
// by its marker (the reaction and the comment it answers), records it, and posts nothing twice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cleanupAll, startServer, tempDir } from '../helpers/runs.js';
import { openFileStore } from '../../src/store/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openPullRepository } from '../../src/pulls/index.js';
import { REPLY_MARKER, replyBody, replyKeysOf } from '../../src/pulls/texts.js';
import { ADDRESS_REVIEW, checkRun, fakeGh, FIX_CI, givenLooks, grownRun, openPullRequest, reviewComment, waitForPull, firstReactionPushed } from './fixture.js';

afterAll(cleanupAll);

const idOf = (id: number) => String(3_000_000_000 + id);

it('a reply GitHub took but svc did not record before a stop is found in its thread and recorded, not posted twice', async () => {
  const gh = await fakeGh();
  const home = await tempDir('svc-pr-reply-');
  const env = { SVC_GH_BIN: gh.bin, SVC_PR_POLL_MS: '100' };
  let server = await startServer({ home, env });
  const { bare, run } = await grownRun(server, [FIX_CI, ADDRESS_REVIEW]);
  const number = await openPullRequest(server, gh, run, bare, {
    defaultChecks: [checkRun('SUCCESS')],
    reviewDecision: 'CHANGES_REQUESTED',
    threads: [
      { isResolved: false, comments: [reviewComment(idOf(601), 'src/a.js', 1, 'Name it better.')] },
      { isResolved: false, comments: [reviewComment(idOf(602), 'src/b.js', 2, 'And this one.')] },
    ],
  });
  await firstReactionPushed(server, run.id);
  const [first, second] = gh.replies(number);
  const followOnRunId = (await waitForPull(server, run.id, () => true)).pr.reactions[0].followOnRunId as string;
  // Each reply says which it is: the reaction (its follow-on run) and the thread's comment.
  expect(replyKeysOf(first!.body)).toEqual([`${followOnRunId}:${idOf(601)}`]);
  expect(replyKeysOf(second!.body)).toEqual([`${followOnRunId}:${idOf(602)}`]);
  await server.stop({ keepHome: true });

  // What a stop right after GitHub took the second reply leaves: the reaction still pushing, that reply not recorded.
  const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
  const repository = await openPullRepository(store);
  const follow = (await repository.get(run.id))!;
  const reaction = follow.reactions[0]!;
  const unrecorded = {
    ...follow,
    headRunId: run.id,
    ownComments: [String(first!.id)],
    reactions: [{ ...reaction, state: 'pushing' as const, replied: [idOf(601)], pushedCommit: null, finishedAt: null }],
  };
  expect(await repository.replaceIf(follow, unrecorded)).toBe(true);
  await store.close();

  server = await startServer({ home, env });
  const pushed = await firstReactionPushed(server, run.id);
  await givenLooks(gh, number, 3);
  expect(gh.replies(number)).toHaveLength(2);
  const kept = JSON.parse(readFileSync(join(home, 'data', 'pull-follows', run.id, 'record.json'), 'utf8'));
  expect(kept.reactions[0].replied).toEqual([idOf(601), idOf(602)]);
  expect(kept.ownComments).toEqual([String(first!.id), String(second!.id)]);
  // svc's replies, in the threads that asked for changes, are still no new comments: no second reaction.
  expect(pushed.pr.reactions).toHaveLength(1);
  expect((await waitForPull(server, run.id, () => true)).pr.reactions).toHaveLength(1);
});

it("svc's reply markers, the older one without a key and the keyed one, both hold what the follower leaves out of new comments", () => {
  const older = 'Addressed in abc by svc run run_x.\n<!-- svc:reply -->';
  const keyed = replyBody('run_x', idOf(601), 'abc');
  for (const body of [older, keyed]) expect(body).toContain(REPLY_MARKER);
  expect(replyKeysOf(older)).toEqual([]);
  expect(replyKeysOf(keyed)).toEqual([`run_x:${idOf(601)}`]);
});
