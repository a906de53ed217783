// When a run's branch counts as merged (src/workspaces/branch-merged.ts), on real repositories in
// temp dirs: a branch gone, one merged on the host and fetched into a clone (origin/main), one
// that conflicts with main, a repository without its default branch; and the clean-up rule as
// announced to other servers, which a server from before `merged` cannot mistake for an age rule.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { branchMergeState } from '../../src/workspaces/branch-merged.js';
import { cleanupRuleOf, cleanupRuleToChange } from '../../src/workspaces/cleanup.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';
import { git, makeBareRepository, makeRepository } from '../helpers/git.js';

afterEach(cleanupAll);

const GIT = { env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } };

function commitOn(dir: string, branch: string, file: string, text: string) {
  git(dir, 'checkout', '-q', branch);
  writeFileSync(join(dir, file), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', `${file} on ${branch}`);
}

describe('branchMergeState', () => {
  it('a missing branch is merged (nothing to lose); a conflicting one is not; a missing default branch cannot be checked', async () => {
    const dir = makeRepository(await tempDir('svc-merged-'), { 'a.txt': 'base\n' });
    expect(await branchMergeState(dir, 'svc/run_gone', 'main', GIT)).toEqual({ merged: true, how: 'branch_gone' });

    git(dir, 'branch', 'svc/run_x');
    expect(await branchMergeState(dir, 'svc/run_x', 'main', GIT)).toEqual({ merged: true, how: 'ancestor', into: 'main' });
    commitOn(dir, 'svc/run_x', 'a.txt', 'theirs\n');
    commitOn(dir, 'main', 'a.txt', 'ours\n');
    expect(await branchMergeState(dir, 'svc/run_x', 'main', GIT)).toEqual({
      merged: false,
      reason: 'unmerged',
      message: '1 commit(s) on svc/run_x whose changes are not in main',
    });
    expect(await branchMergeState(dir, 'svc/run_x', 'trunk', GIT)).toMatchObject({
      merged: false,
      reason: 'check_failed',
      message: expect.stringContaining("'trunk'"),
    });
    expect(await branchMergeState(join(dir, 'nowhere'), 'svc/run_x', 'main', GIT)).toMatchObject({ merged: false, reason: 'check_failed' });
  });

  it("in a clone, a branch merged on the host counts once fetched: origin/main holds it, the clone's main does not", async () => {
    const parent = await tempDir('svc-merged-clone-');
    const bare = makeBareRepository(parent, 'lib');
    const clone = join(parent, 'clone');
    git(parent, 'clone', '-q', bare, clone);
    git(clone, 'checkout', '-q', '-b', 'svc/run_y');
    commitOn(clone, 'svc/run_y', 'y.txt', 'y\n');
    git(clone, 'push', '-q', 'origin', 'svc/run_y:main');
    git(clone, 'checkout', '-q', 'main');
    expect(await branchMergeState(clone, 'svc/run_y', 'main', GIT)).toEqual({ merged: true, how: 'ancestor', into: 'origin/main' });
    expect(git(clone, 'rev-list', '--count', 'main..svc/run_y')).toBe('1');
  });
});

describe('the clean-up rule between servers', () => {
  it('a merged rule carries its age as endedBefore, so an older server reading before finds none', () => {
    const before = new Date('2026-01-01T00:00:00.000Z');
    expect(cleanupRuleToChange({ before })).toEqual({ before: before.toISOString() });
    const merged = cleanupRuleToChange({ before, merged: true, force: true });
    expect(merged).toEqual({ merged: true, force: true, endedBefore: before.toISOString() });
    expect(cleanupRuleOf(merged)).toEqual({ merged: true, force: true, before });
    expect(cleanupRuleOf(cleanupRuleToChange({ merged: true }))).toEqual({ merged: true, force: false });
    expect(cleanupRuleOf({ before: before.toISOString() })).toEqual({ before });
  });
});
