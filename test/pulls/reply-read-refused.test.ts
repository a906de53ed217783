// A refused read of the review threads gives up no reply (docs/decisions.md, "Pull request
// reactions"): before a reaction's first reply, svc reads the threads (svcReplies) once to find a
// reply it posted but did not record. When that read is refused (a 403 secondary rate limit), no
// reply is recorded as failed and no try is counted: the replies wait for the next look, and are
// posted once the read answers again — or, when it never does, without it after MAX_THREAD_READS
// looks, so that no reaction waits for ever.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, cleanupAll } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { givenLooks, pullServer, waitForPull, type FakeGh, pausedReviewReaction } from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer());
});
afterAll(cleanupAll);

const idOf = (id: number) => String(3_000_000_000 + id);

it('a refused read of the threads does not give up replies that were never tried', async () => {
  const { run, number, followOn } = await pausedReviewReaction(server, gh, [idOf(701), idOf(702)]);
  // From now on GitHub refuses the threads' read for a while; it still takes replies.
  gh.pull(number, (pull) => {
    pull.refuseThreads = 403;
  });
  expect((await api(server, 'POST', `/api/workflows/runs/${followOn}/approve`, {})).status).toBe(200);
  // Pushed; the replies wait, none tried, none given up, no try counted, the read's failure on the follow.
  const waiting = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushing' && /reading the review threads/.test(r.pr?.lastError ?? ''));
  expect(waiting.pr.lastError).toMatch(/secondary rate limit \(HTTP 403\)/);
  await givenLooks(gh, number, 3);
  const still = await waitForPull(server, run.id, () => true);
  expect(still.pr.reactions[0]).toMatchObject({ state: 'pushing' });
  expect(still.pr.reactions[0].replyFailures ?? []).toEqual([]);
  expect(still.pr.reactions[0].replyTries ?? 0).toBe(0);
  expect(gh.replies(number)).toEqual([]);
  // GitHub answers again: the replies are made.
  gh.pull(number, (pull) => {
    delete pull.refuseThreads;
  });
  const pushed = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushed');
  expect(pushed.pr.reactions[0].replyFailures ?? []).toEqual([]);
  expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(701), idOf(702)]);
}, 90_000);

it('a read of the threads refused for good: the replies are made without it, once, after MAX_THREAD_READS looks', async () => {
  const { run, number, followOn } = await pausedReviewReaction(server, gh, [idOf(801), idOf(802)]);
  gh.pull(number, (pull) => {
    pull.refuseThreads = 403;
  });
  expect((await api(server, 'POST', `/api/workflows/runs/${followOn}/approve`, {})).status).toBe(200);
  const pushed = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushed');
  // Made without the read once its looks ran out: each once.
  expect(pushed.pr.reactions[0].replyFailures ?? []).toEqual([]);
  expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(801), idOf(802)]);
}, 90_000);
