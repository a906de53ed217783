// A node's range starts at the worktree's HEAD as the node starts (node-commits.ts). The first node
// after a fresh setup takes the HEAD the setup just left instead of asking git (one process fewer
// before a run's first node); every later node asks git, since a running node's agent may commit.
import { describe, expect, it } from 'vitest';
import { nodeCommits, type WorktreeCommits } from '../../src/runs/executor/node-commits.js';
import type { RunRecord } from '../../src/runs/model/types.js';

/** A worktree git whose HEAD the test moves, counting what was asked of it. */
function fakeGit(head: { value: string }) {
  const asked: string[] = [];
  const git: WorktreeCommits = {
    head: async () => {
      asked.push('head');
      return head.value;
    },
    commitAll: async () => {
      asked.push('commitAll');
      return { head: head.value, commit: null };
    },
    changes: async () => ({ files: 0, insertions: 0, deletions: 0 }),
  };
  return { git, asked };
}

const run = { id: 'run_x', cwd: '/nowhere', workflow: 'w', branch: 'svc/run_x', setup: undefined } as unknown as RunRecord;

describe('node commits', () => {
  it('gives the first node the head the setup left, then asks git for every later one', async () => {
    const head = { value: 'a'.repeat(40) };
    const { git, asked } = fakeGit(head);
    const commits = nodeCommits(git, run, { commit: false, knownHead: head.value });
    expect(await commits.start()).toBe('a'.repeat(40));
    expect(asked).toEqual([]);
    // An agent of the first node commits while it runs: the second node sees git's answer.
    head.value = 'b'.repeat(40);
    expect(await commits.start()).toBe('b'.repeat(40));
    expect(asked).toEqual(['head']);
  });

  it('asks git from the first node when no setup ran in this process (a resumed run)', async () => {
    const head = { value: 'c'.repeat(40) };
    const { git, asked } = fakeGit(head);
    const commits = nodeCommits(git, run, { commit: false });
    expect(await commits.start()).toBe('c'.repeat(40));
    expect(asked).toEqual(['head']);
  });
});
