// The agent-slot pool itself (src/agents/agent-slots.ts): first come, first served within both
// limits, a waiter of a full assistant passed over, an aborted waiter gone from the queue; `waiting`
// counts only the waiters the server's budget holds back (what a pool's refill waits for).
import { describe, expect, it } from 'vitest';
import { AgentSlots } from '../../src/agents/agent-slots.js';
import { AgentError } from '../../src/agents/types.js';

/** The order in which waiters got their slot, by label. */
function tracker(slots: AgentSlots) {
  const granted: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (label: string, assistant: 'claude' | 'codex', signal = new AbortController().signal) =>
    slots.acquire(assistant, signal).then((release) => {
      granted.push(label);
      releases.set(label, release);
    });
  return { granted, ask, release: (label: string) => releases.get(label)!() };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('AgentSlots', () => {
  it('hands slots out in arrival order as they are released', async () => {
    const t = tracker(new AgentSlots(2, async () => null));
    for (const label of ['a', 'b', 'c', 'd']) void t.ask(label, 'claude');
    await settle();
    expect(t.granted).toEqual(['a', 'b']);
    t.release('b');
    await settle();
    expect(t.granted).toEqual(['a', 'b', 'c']);
    t.release('b'); // a second release of the same slot frees nothing more
    await settle();
    expect(t.granted).toEqual(['a', 'b', 'c']);
    t.release('a');
    await settle();
    expect(t.granted).toEqual(['a', 'b', 'c', 'd']);
  });

  it('passes over a waiter whose assistant is at its maxConcurrent, not the others', async () => {
    const t = tracker(new AgentSlots(3, async (name) => (name === 'claude' ? 1 : null)));
    void t.ask('claude1', 'claude');
    void t.ask('claude2', 'claude');
    void t.ask('codex1', 'codex');
    await settle();
    expect(t.granted).toEqual(['claude1', 'codex1']);
    t.release('claude1');
    await settle();
    expect(t.granted).toEqual(['claude1', 'codex1', 'claude2']);
  });

  it('an aborted waiter leaves the queue with agent_cancelled; the next one gets its turn', async () => {
    const slots = new AgentSlots(1, async () => null);
    const t = tracker(slots);
    void t.ask('holder', 'claude');
    const abort = new AbortController();
    const cancelled = t.ask('cancelled', 'claude', abort.signal);
    void t.ask('next', 'claude');
    await settle();
    abort.abort();
    await expect(cancelled).rejects.toBeInstanceOf(AgentError);
    await expect(cancelled).rejects.toMatchObject({ code: 'agent_cancelled' });
    t.release('holder');
    await settle();
    expect(t.granted).toEqual(['holder', 'next']);
  });

  it('calls onWait only when the caller has to wait', async () => {
    const slots = new AgentSlots(1, async () => null);
    const waits: string[] = [];
    const first = await slots.acquire('claude', new AbortController().signal, () => waits.push('first'));
    const second = slots.acquire('claude', new AbortController().signal, () => waits.push('second'));
    await settle();
    expect(waits).toEqual(['second']);
    first();
    (await second)();
  });

  it("counts as waiting only those the server's budget holds back, not an assistant's own limit", async () => {
    const slots = new AgentSlots(3, async (name) => (name === 'claude' ? 1 : null));
    const t = tracker(slots);
    void t.ask('claude1', 'claude');
    void t.ask('claude2', 'claude');
    await settle();
    // claude2 waits for claude's own limit: the server has room.
    expect(t.granted).toEqual(['claude1']);
    expect(slots.waiting).toBe(0);
    void t.ask('codex1', 'codex');
    void t.ask('codex2', 'codex');
    void t.ask('codex3', 'codex');
    await settle();
    // Three slots in use (claude1, codex1, codex2): codex3 waits for the server's budget.
    expect(t.granted).toEqual(['claude1', 'codex1', 'codex2']);
    expect(slots.waiting).toBe(1);
  });
});
