// Following survives a restart (docs/decisions.md, "Pull request reactions"): the real `svc serve`
// is killed (-9) while a reaction's follow-on run waits at its gate; started again on the same home,
// it follows the pull request where it stopped — the same follow-on run, approved, is pushed, and no
// second one starts. `svc runs show` prints the pull request, its checks and the reaction. A stop
// between deciding a reaction and making its run makes that run at the next start, under its id.
import { afterAll, afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { api, cleanupAll, FAKE_CLAUDE, getRun, startServer, tempDir, waitForStatus } from '../helpers/runs.js';
import { openFileStore } from '../../src/store/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openPullRepository } from '../../src/pulls/index.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { git } from '../helpers/git.js';
import {
  ACTIONS_RUN,
  checkRun,
  failedJobLog,
  fakeGh,
  FIX_CI,
  followOns,
  gated,
  grownRun,
  openPullRequest,
  waitForPull,
  firstReactionPushed,
} from './fixture.js';

afterEach(killAllServes);
afterAll(cleanupAll);

it('a server killed mid-reaction is started again: the same follow-on run goes on, none is duplicated', async () => {
  const gh = await fakeGh();
  const home = await tempDir('svc-pr-restart-');
  const env = { SVC_GH_BIN: gh.bin, SVC_PR_POLL_MS: '100', SVC_CLAUDE_BIN: FAKE_CLAUDE };
  let server: ServeProcess = await spawnServe({ home, cwd: home, env });
  const { bare, run } = await grownRun(server, [gated(FIX_CI)]);
  gh.edit((state) => {
    state.logs[ACTIONS_RUN] = failedJobLog();
  });
  await openPullRequest(server, gh, run, bare, { checks: { [run.headCommit]: [checkRun('FAILURE')] }, defaultChecks: [checkRun('SUCCESS')] });
  const started = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'running');
  const followOnId = started.pr.reactions[0].followOnRunId;
  await waitForStatus(server, followOnId, 'paused');

  await server.stop('SIGKILL');
  server = await spawnServe({ home, cwd: home, env });
  // A paused run stays paused across a restart; the pull request is looked at again, nothing new starts.
  expect((await getRun(server, followOnId)).status).toBe('paused');
  expect((await api(server, 'POST', `/api/workflows/runs/${followOnId}/approve`, {})).status).toBe(200);
  const pushed = await waitForPull(server, run.id, (r) => r.pr?.reactions[0]?.state === 'pushed' && r.pr.checks[0]?.state === 'success');
  expect(pushed.pr.reactions).toHaveLength(1);
  expect(await followOns(server, run.id)).toEqual([expect.objectContaining({ id: followOnId })]);
  expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe((await getRun(server, followOnId)).headCommit);

  const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: home });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain(`pr:       ${pushed.pr.url}\n            #${pushed.pr.number} open at `);
  expect(shown.stdout).toContain('checks:   test success');
  expect(shown.stdout).toContain(`reaction: 1/3 checks test → fix-ci ${followOnId} pushed`);
});

it('a stop between choosing a reaction and making its run: the next start makes that same run, once', async () => {
  const gh = await fakeGh();
  const home = await tempDir('svc-pr-starting-');
  const env = { SVC_GH_BIN: gh.bin, SVC_PR_POLL_MS: '100' };
  let server = await startServer({ home, env });
  const { bare, run } = await grownRun(server, [FIX_CI]);
  // Opened with its checks still running: nothing to react to yet.
  await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun(null)] });
  await waitForPull(server, run.id, (r) => r.pr?.checks[0]?.state === 'pending');
  await server.stop({ keepHome: true });

  // What a process stopped right after saving its decision leaves: the reaction `starting`, its run's id chosen, no run made.
  const store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
  const repository = await openPullRepository(store);
  const follow = (await repository.get(run.id))!;
  const chosen = 'run_chosenbeforeastop';
  const reaction = {
    key: `ci:${run.headCommit}:test`,
    kind: 'ci' as const,
    commit: run.headCommit,
    checks: ['test'],
    comments: [],
    workflow: 'fix-ci',
    followOnRunId: chosen,
    fromRunId: run.id,
    message: 'Check: test failed',
    state: 'starting' as const,
    replied: [],
    pushedCommit: null,
    error: null,
    startedAt: new Date().toISOString(),
    finishedAt: null,
  };
  expect(await repository.replaceIf(follow, { ...follow, reactions: [reaction] })).toBe(true);
  await store.close();
  gh.edit((state) => {
    state.pulls.at(-1).defaultChecks = [checkRun('SUCCESS')];
  });

  server = await startServer({ home, env });
  const pushed = await firstReactionPushed(server, run.id);
  expect(pushed.pr.reactions).toEqual([expect.objectContaining({ followOnRunId: chosen, outcome: 'pushed' })]);
  expect((await followOns(server, run.id)).map((r) => r.id)).toEqual([chosen]);
  expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe((await getRun(server, chosen)).headCommit);
});
