// svc's reply marker counts only on a comment svc's own gh user wrote (docs/decisions.md, "Pull
// request reactions"): anyone who can see a run's id could post `<!-- svc:reply <run>:<comment> -->`
// in a thread first. Such a comment (GraphQL's `viewerDidAuthor` false) is not taken for svc's
// reply: svc still posts its own there.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, cleanupAll } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { replyBody } from '../../src/pulls/texts.js';
import { pullServer, reviewComment, waitForPull, type FakeGh, pausedReviewReaction } from './fixture.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer());
});
afterAll(cleanupAll);

const idOf = (id: number) => String(3_000_000_000 + id);

it("a comment by someone else carrying svc's reply marker does not stop svc's reply", async () => {
  const { run, number, followOn } = await pausedReviewReaction(server, gh, [idOf(711), idOf(712)]);
  // Someone who saw the run's id posts svc's marker for the first thread's reply before svc does.
  const outsider = { login: 'mallory', association: 'NONE', type: 'User' };
  gh.pull(number, (pull) => {
    pull.threads[0].comments.push(reviewComment(idOf(713), 'src/a.js', 1, replyBody(followOn, idOf(711), 'deadbeef'), outsider));
  });
  expect((await api(server, 'POST', `/api/workflows/runs/${followOn}/approve`, {})).status).toBe(200);
  const pushed = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushed');
  expect(pushed.pr.reactions[0].replyFailures ?? []).toEqual([]);
  expect(gh.replies(number).map((r) => r.inReplyTo)).toEqual([idOf(711), idOf(712)]);
}, 90_000);
