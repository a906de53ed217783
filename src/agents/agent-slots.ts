import type { AgentKind, AssistantName } from '../config/index.js';
import { AgentError, type Agent } from './types.js';

interface Waiter {
  assistant: AssistantName;
  /** The assistant's own limit when it asked (null: only the server's). */
  limit: number | null;
  grant(): void;
}

/**
 * How many agent processes this server runs at once: `SVC_MAX_CONCURRENT_AGENTS` in all, and an
 * assistant's `maxConcurrent` for its own (docs/contract.md, "Agent slots"). Slots go first come, first
 * served: a waiter is passed over only while its own assistant is at its limit, so a full claude
 * never holds codex back; an aborted waiter leaves the queue.
 */
export class AgentSlots {
  private inUse = 0;
  private readonly perAssistant = new Map<AssistantName, number>();
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly total: number,
    private readonly limitOf: (assistant: AssistantName) => Promise<number | null | undefined>,
  ) {}

  /**
   * Resolves with the slot's release once one is free; `onWait` is called when it has to wait.
   * Rejects with `agent_cancelled` when `signal` aborts while waiting.
   */
  async acquire(assistant: AssistantName, signal: AbortSignal, onWait?: () => void): Promise<() => void> {
    const limit = (await this.limitOf(assistant)) ?? null;
    if (signal.aborted) throw cancelled();
    return new Promise((resolve, reject) => {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.inUse--;
        this.perAssistant.set(assistant, (this.perAssistant.get(assistant) ?? 1) - 1);
        this.dispatch();
      };
      const waiter: Waiter = {
        assistant,
        limit,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const at = this.queue.indexOf(waiter);
        if (at < 0) return;
        this.queue.splice(at, 1);
        reject(cancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.dispatch();
      if (this.queue.includes(waiter)) onWait?.();
    });
  }

  /** Agents waiting for a slot of the server's budget now (not those held back only by their own assistant's limit). */
  get waiting(): number {
    return this.queue.filter((waiter) => waiter.limit === null || (this.perAssistant.get(waiter.assistant) ?? 0) < waiter.limit).length;
  }

  /** Grants, in arrival order, every waiter that fits under both limits. */
  private dispatch(): void {
    for (let i = 0; i < this.queue.length && this.inUse < this.total;) {
      const waiter = this.queue[i]!;
      const own = this.perAssistant.get(waiter.assistant) ?? 0;
      if (waiter.limit !== null && own >= waiter.limit) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.inUse++;
      this.perAssistant.set(waiter.assistant, own + 1);
      waiter.grant();
    }
  }
}

function cancelled(): AgentError {
  return new AgentError('agent_cancelled', 'cancelled while waiting for an agent slot');
}

/**
 * The agents, each run holding a slot from before its process starts until it ends (released in
 * `finally`), so the agent's own timers (the node's `timeout`) start when it has the slot. A slot
 * is the assistant's the request names (an acp assistant's), else the agent's own.
 */
export function withAgentSlots(agents: Record<AgentKind, Agent>, slots: AgentSlots): Record<AgentKind, Agent> {
  const gated = (kind: AgentKind): Agent => ({
    name: agents[kind].name,
    async run(request) {
      const assistant = request.assistant ?? kind;
      let waited = false;
      const release = await slots.acquire(assistant, request.signal, () => {
        waited = true;
        request.onSlotWait?.(true);
      });
      try {
        if (waited) request.onSlotWait?.(false);
        try {
          await request.admitMemory?.();
        } catch {
          throw cancelled();
        }
        return await agents[kind].run(request);
      } finally {
        release();
      }
    },
  });
  return { claude: gated('claude'), codex: gated('codex'), acp: gated('acp') };
}
