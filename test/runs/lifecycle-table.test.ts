// The lifecycle table (src/runs/model/lifecycle.ts) walked row by row: every user operation's door
// answers 409 with {status, allowed} exactly outside its `from`, every state is reachable from
// `create`, terminal states only lead to deletion, and node changes follow their own table.
import { describe, expect, it } from 'vitest';
import {
  assertOperationAllowed,
  canChange,
  canMoveNode,
  moveNode,
  NODE_CHANGES,
  RUN_CHANGES,
  RUN_OPERATIONS,
  type NodeChange,
  type RunChange,
} from '../../src/runs/model/lifecycle.js';
import { freshNodeState } from '../../src/runs/model/node-state.js';
import { NODE_STATUSES, RUN_STATUSES, TERMINAL_STATUSES, type NodeStatus, type RunStatus } from '../../src/runs/model/types.js';
import { statusOf } from '../../src/shared/error-answer.js';
import { DomainError } from '../../src/shared/errors.js';

const changes = Object.keys(RUN_CHANGES) as RunChange[];

describe('run changes', () => {
  it.each(RUN_OPERATIONS.flatMap((op) => RUN_STATUSES.map((status) => [op, status] as const)))('%s of a %s run', (op, status) => {
    const allowed: readonly RunStatus[] = RUN_CHANGES[op].from;
    if (allowed.includes(status)) {
      expect(() => assertOperationAllowed(op, status)).not.toThrow();
      return;
    }
    try {
      assertOperationAllowed(op, status);
      expect.unreachable(`${op} of a ${status} run was allowed`);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'invalid_run_state', details: { status, allowed } });
      expect(statusOf((error as DomainError).code)).toBe(409);
    }
  });

  it('approve leads a paused run to running, or to pending when every slot is taken', () => {
    expect(RUN_CHANGES.approve.from).toEqual(['paused']);
    expect(RUN_CHANGES.approve.to).toEqual(['running', 'pending']);
    expect(RUN_CHANGES.approve.events).toEqual(['run_approved', 'node_completed']);
  });

  it('reaches every state from create', () => {
    const reached = new Set<RunStatus>(RUN_CHANGES.create.to);
    let grew = true;
    while (grew) {
      grew = false;
      for (const change of changes)
        for (const to of RUN_CHANGES[change].to as readonly RunStatus[])
          if (!reached.has(to) && [...reached].some((from) => canChange(change, from))) {
            reached.add(to);
            grew = true;
          }
    }
    expect([...reached].sort()).toEqual([...RUN_STATUSES].sort());
  });

  it('leaves terminal states only by deletion (and resume, which keeps a failed run failed)', () => {
    for (const status of TERMINAL_STATUSES) {
      const leaving = changes.filter((change) => canChange(change, status) && !(RUN_CHANGES[change].to as readonly RunStatus[]).every((to) => to === status));
      expect(leaving.filter((change) => change !== 'delete' && !(status === 'failed' && change === 'continue'))).toEqual([]);
    }
  });
});

describe('node changes', () => {
  const nodeChanges = Object.keys(NODE_CHANGES) as NodeChange[];
  it.each(nodeChanges.flatMap((change) => NODE_STATUSES.map((status) => [change, status] as const)))('%s of a %s node', (change, status) => {
    const state = { ...freshNodeState(), status: status as NodeStatus };
    if (canMoveNode(change, status)) expect(moveNode(state, change, { error: 'x' })).toMatchObject({ status: NODE_CHANGES[change].to, error: 'x' });
    else {
      expect(() => moveNode(state, change)).toThrow(/does not apply/);
      expect(state.status).toBe(status);
    }
  });

  it('a completed node never changes again', () => {
    expect(nodeChanges.filter((change) => canMoveNode(change, 'completed'))).toEqual([]);
  });
});
