// A reaction's step once its follow-on run settled (docs/decisions.md, "Pull request reactions"),
// without a server: the run's record is what the engine answers, the follow's writes are recorded.
import { describe, expect, it } from 'vitest';
import { Follows, type PullDeps } from '../../src/pulls/deps.js';
import type { PullSnapshot } from '../../src/pulls/github.js';
import type { PullFollow } from '../../src/pulls/records.js';
import { Reactions } from '../../src/pulls/reactions.js';
import { follow as followed, reactionRecord } from '../store/contract/pulls.js';
import type { RunRecord } from '../../src/runs/index.js';

const reaction = reactionRecord('running');

const follow: PullFollow = followed('run_a', { headCommit: 'abc', reactions: [reaction] });

const pr: PullSnapshot = {
  number: 7,
  url: follow.url,
  state: 'open',
  branch: 'svc/run_a',
  headCommit: 'abc',
  crossRepository: null,
  checks: [],
  changesRequested: false,
};

/** Reactions whose engine answers `followOn` for the follow-on run; the events emitted are collected. */
function reactionsWith(followOn: Partial<RunRecord>) {
  const events: string[] = [];
  const deps = {
    repository: { replaceIf: async () => true },
    engine: { find: async () => ({ id: 'run_f', ...followOn }), runs: { emit: async (_run: unknown, type: string) => void events.push(type) } },
    logger: { warn: () => undefined },
    pollMs: 100,
    now: () => new Date('2026-01-01T00:01:00.000Z'),
  } as unknown as PullDeps;
  return { reactions: new Reactions(new Follows(deps)), events };
}

describe("a reaction's follow-on run", () => {
  it('failed on a usage limit with its auto-resume kept is still under way: nobody is asked, nothing is pushed', async () => {
    const { reactions, events } = reactionsWith({ status: 'failed', error: 'usage limit', autoResumeAt: '2026-01-01T05:00:00.000Z' });
    const after = await reactions.advance(follow, reaction, { id: 'run_a' } as RunRecord, pr);
    expect(after).toBe(follow);
    expect(events).toEqual([]);
  });

  it('failed without an appointment to resume asks a person', async () => {
    const { reactions, events } = reactionsWith({ status: 'failed', error: 'boom', autoResumeAt: null });
    const after = await reactions.advance(follow, reaction, { id: 'run_a' } as RunRecord, pr);
    expect(after.needsHuman).toContain('ended failed (boom)');
    expect(after.reactions[0]!.state).toBe('failed');
    expect(events).toEqual(['reaction_finished', 'needs_human']);
  });
});
