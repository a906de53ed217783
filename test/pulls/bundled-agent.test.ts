// The bundled follow-on workflows, `fix-ci` and `address-review` (bundled/workflows/), run by an
// agent: the fake Claude (test/fixtures/fake-claude), which honours the permission flags as the real
// CLI does and records each call (FAKE_CLAUDE_LOG). The other tests of pull requests replace both
// workflows with bash nodes; these use repositories without their own, so svc's are run. The agent
// is told the evidence — the failing check, its step and the excerpt; each review comment — edits a
// file with its `Write` tool, svc commits it and pushes it to the pull request's branch on a real
// bare `origin`. The original run's spend cap and permissions bound each follow-on run, and its agent
// runs in its sandbox (docs/decisions.md, "Pull request reactions", "Agents in a sandbox").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getRun, readJsonLines, setProcessEnv, tempDir, type Json } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { git } from '../helpers/git.js';
import {
  ACTIONS_RUN,
  checkRun,
  failedJobLog,
  followOns,
  givenLooks,
  grownRun,
  openPullRequest,
  reviewComment,
  waitForPull,
  type FakeGh,
  pullServer,
  redPullRequest,
  firstReactionPushed,
} from './fixture.js';

/** The file the fake agent writes with its `Write` tool, relative to its working directory (the follow-on run's worktree). */
const EDITED = 'agent-fix.txt';
/** The original run's spend cap (the `grow` workflow's `max_cost_usd`), which its follow-on runs keep. */
const CAP = 0.5;

let server: TestServer;
let gh: FakeGh;
let agentLog: string;

beforeAll(async () => {
  agentLog = join(await tempDir('svc-pr-agent-'), 'claude.jsonl');
  // Read by the fake from the agent's environment (vitest.config.ts lets FAKE_CLAUDE_* through to agents).
  setProcessEnv({ FAKE_CLAUDE_LOG: agentLog, FAKE_CLAUDE_WRITE: EDITED });
  ({ server, gh } = await pullServer());
});

afterAll(cleanupAll);

/** The fake agent's calls made in `run`'s worktree. */
const agentCalls = (run: Json): Json[] => readJsonLines(agentLog).filter((call) => call.cwd === run.cwd);

/** The value of `flag` in a recorded argv. */
const flagValue = (argv: string[], flag: string): string | undefined => {
  const at = argv.indexOf(flag);
  return at === -1 ? undefined : argv[at + 1];
};

/**
 * What the follow-on run and its agent carried of the original run: its spend cap, its permissions
 * (`edit` here: the highest its workflow allows), its values from outside, the agent's sandbox.
 */
function expectBoundLikeTheOriginal(original: Json, followOn: Json, node: string, call: Json): void {
  expect(original.maxCostUsd).toBe(CAP);
  expect(followOn).toMatchObject({ maxCostUsd: CAP, permissions: 'edit', outside: 'remote', fromRunId: original.id });
  expect(followOn.nodes[node]).toMatchObject({ status: 'completed', permissions: 'edit', sandbox: 'on' });
  const argv = call.argv as string[];
  expect(flagValue(argv, '--permission-mode')).toBe('acceptEdits');
  // What is left of the cap, never more.
  expect(Number(flagValue(argv, '--max-budget-usd'))).toBeGreaterThan(0);
  expect(Number(flagValue(argv, '--max-budget-usd'))).toBeLessThanOrEqual(CAP);
  const settings = JSON.parse(flagValue(argv, '--settings')!);
  expect(settings.sandbox).toMatchObject({ enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false });
}

/** The follow-on run's head is the pull request's branch on origin, a fast-forward of the original's, holding the agent's file. */
function expectPushed(bare: string, original: Json, followOn: Json): void {
  const branch = `refs/heads/svc/${original.id}`;
  expect(git(bare, 'rev-parse', branch)).toBe(followOn.headCommit);
  expect(git(bare, 'merge-base', '--is-ancestor', original.headCommit, followOn.headCommit)).toBe('');
  expect(git(bare, 'diff', '--name-only', original.headCommit, followOn.headCommit).split('\n')).toEqual([EDITED]);
  expect(git(bare, 'show', `${branch}:${EDITED}`)).toBe('written by fake-claude');
}

describe('the bundled fix-ci, run by an agent', () => {
  it("is told the failing check, its step and the excerpt; its edit is pushed to the pull request's branch; green: no further run", async () => {
    const { bare, run, number } = await redPullRequest(server, gh, [], { max_cost_usd: CAP });

    const pushed = await firstReactionPushed(server, run.id);
    const [reaction] = pushed.pr.reactions;
    expect(reaction).toMatchObject({ kind: 'ci', checks: ['test'], workflow: 'fix-ci', outcome: 'pushed' });
    const followOn = await getRun(server, reaction.followOnRunId);
    expect(followOn.status).toBe('completed');
    // svc's own fix-ci, the repository having none: one prompt node at `edit`, its words around the evidence.
    expect(followOn.graph).toEqual([expect.objectContaining({ id: 'fix', kind: 'prompt', permissions: 'edit' })]);

    const calls = agentCalls(followOn);
    expect(calls).toHaveLength(1);
    const prompt = calls[0]!.stdin as string;
    expect(prompt).toContain(`You are in a git worktree at ${followOn.cwd} whose branch is a pull request's. Its CI failed:`);
    expect(prompt).toContain('Find the cause in the code and fix it');
    expect(prompt).toContain('Check: test');
    expect(prompt).toContain(`URL: https://github.com/me/widgets/actions/runs/${ACTIONS_RUN}/job/222`);
    expect(prompt).toContain('Failing step: Run npm test');
    expect(prompt).toContain('FAIL src/math.test.js');
    expect(prompt).toContain('expected 3, got 4');
    expect(prompt).not.toContain('summary line 119');
    expectBoundLikeTheOriginal(run, followOn, 'fix', calls[0]!);
    expect(followOn.nodes.fix.toolsDeniedCount ?? 0).toBe(0);
    expectPushed(bare, run, followOn);

    // The stand-in's checks of any other head are green: the new head's.
    const green = await waitForPull(server, run.id, (r) => r.pr?.headCommit === followOn.headCommit && r.pr.checks[0]?.state === 'success');
    expect(green.needsHuman).toBeUndefined();
    await givenLooks(gh, number, 4);
    const after = await getRun(server, run.id);
    expect(after.pr.reactions).toHaveLength(1);
    expect(after.needsHuman).toBeUndefined();
    expect(await followOns(server, run.id)).toHaveLength(1);
    expect(await followOns(server, followOn.id)).toHaveLength(0);
    expect(agentCalls(followOn)).toHaveLength(1);
  });
});

describe('the bundled address-review, run by an agent', () => {
  const idOf = (n: number) => String(3_000_000_000 + n);

  it('is told both comments, file, line and body; its edit is pushed and each comment gets one reply', async () => {
    const { bare, run } = await grownRun(server, [], { max_cost_usd: CAP });
    const number = await openPullRequest(server, gh, run, bare, {
      defaultChecks: [checkRun('SUCCESS')],
      reviewDecision: 'CHANGES_REQUESTED',
      threads: [
        { isResolved: false, comments: [reviewComment(idOf(601), 'src/math.js', 3, 'Use a const here.')] },
        { isResolved: false, comments: [reviewComment(idOf(602), 'README.md', 1, 'Say what widgets are.')] },
      ],
    });

    const pushed = await firstReactionPushed(server, run.id);
    const [reaction] = pushed.pr.reactions;
    expect(reaction).toMatchObject({ kind: 'review', comments: [idOf(601), idOf(602)], workflow: 'address-review' });
    const followOn = await getRun(server, reaction.followOnRunId);
    expect(followOn.status).toBe('completed');
    expect(followOn.graph).toEqual([expect.objectContaining({ id: 'address', kind: 'prompt', permissions: 'edit' })]);

    const calls = agentCalls(followOn);
    expect(calls).toHaveLength(1);
    const prompt = calls[0]!.stdin as string;
    expect(prompt).toContain('Address each comment in the code.');
    expect(prompt).toContain(`Comment ${idOf(601)} on src/math.js:3 by reviewer`);
    expect(prompt).toContain('Use a const here.');
    expect(prompt).toContain(`Comment ${idOf(602)} on README.md:1 by reviewer`);
    expect(prompt).toContain('Say what widgets are.');
    expectBoundLikeTheOriginal(run, followOn, 'address', calls[0]!);
    expectPushed(bare, run, followOn);

    const replies = gh.replies(number);
    expect(replies.map((r) => r.inReplyTo)).toEqual([idOf(601), idOf(602)]);
    for (const reply of replies) expect(reply.body).toContain(`Addressed in ${followOn.headCommit} by svc run ${followOn.id}`);

    // The same review, seen again: nothing more.
    await givenLooks(gh, number, 4);
    expect((await getRun(server, run.id)).pr.reactions).toHaveLength(1);
    expect(gh.replies(number)).toHaveLength(2);
    expect(await followOns(server, run.id)).toHaveLength(1);
  });
});

describe("the original workflow's permissions", () => {
  it("`permissions: read` bounds the bundled fix-ci's agent too: its edit is refused, nothing is pushed, a person is asked", async () => {
    // A workflow of bash nodes only, saying its agents may only read.
    const { bare, run } = await grownRun(server, [], { permissions: 'read' });
    gh.edit((state) => {
      state.logs[ACTIONS_RUN] = failedJobLog();
    });
    const number = await openPullRequest(server, gh, run, bare, { checks: { [run.headCommit]: [checkRun('FAILURE')] }, defaultChecks: [checkRun('SUCCESS')] });

    const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true || r.pr?.reactions[0]?.state === 'pushed');
    const [reaction] = asked.pr.reactions;
    expect(asked.needsHumanReason).toContain('completed without a commit');
    const followOn = await getRun(server, reaction.followOnRunId);
    expect(followOn).toMatchObject({ status: 'completed', permissions: 'read', outside: 'remote' });
    expect(followOn.maxCostUsd ?? null).toBeNull();
    expect(followOn.nodes.fix).toMatchObject({ permissions: 'read', sandbox: 'on', toolsDeniedCount: 1 });
    const calls = agentCalls(followOn);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.stdin).toContain('Failing step: Run npm test');
    expect(flagValue(calls[0]!.argv, '--permission-mode')).toBe('default');
    expect(JSON.parse(flagValue(calls[0]!.argv, '--settings')!).sandbox).toMatchObject({ enabled: true, autoAllowBashIfSandboxed: false });
    expect(existsSync(join(followOn.cwd, EDITED))).toBe(false);
    // Nothing pushed: the pull request's branch is still the original run's head.
    expect(git(bare, 'rev-parse', `refs/heads/svc/${run.id}`)).toBe(run.headCommit);
    await givenLooks(gh, number, 3);
    expect(await followOns(server, run.id)).toHaveLength(1);
  });
});
