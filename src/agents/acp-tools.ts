import type { ToolCall, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { pathShortener, toolCall, type AgentToolCall, type AgentToolStatus } from './tool-activity.js';

type Json = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);

/** What is known of one tool call, merged from its `tool_call`, its updates and a permission request. */
interface Known {
  name?: string | undefined;
  kind?: string | undefined;
  title?: string | undefined;
  path?: string | undefined;
  command?: string | undefined;
  resolved: boolean;
}

/** Only these input fields may show, as for Claude Code's calls: an input also carries what it writes. */
const COMMAND_FIELDS = ['command', 'pattern', 'query', 'url'] as const;

/**
 * An ACP agent's tool calls as svc's `agent_tool` events (docs/decisions.md, "Tool activity"): a
 * call is announced once, when it resolves — `completed` (ok), `failed`, or refused by svc's
 * answer to its permission request (denied). Gemini CLI asks permission with no `tool_call` before
 * it and says nothing after a refusal, so the request alone makes a call known, and a refusal
 * resolves it at once. A call still unresolved when the turn ends is not announced — unless svc
 * cancelled the turn: the calls open then failed (a `completed` after the cancel too), and a
 * permission asked meanwhile is no refusal.
 */
export function acpToolTracker(cwd: string, emit: (call: AgentToolCall) => void) {
  const calls = new Map<string, Known>();
  const shorten = pathShortener(cwd);
  const merge = (update: ToolCall | ToolCallUpdate): Known => {
    const known = calls.get(update.toolCallId) ?? { resolved: false };
    known.name = str(update.name) ?? known.name;
    known.kind = str(update.kind) ?? known.kind;
    known.title = str(update.title) ?? known.title;
    known.path = str(update.locations?.[0]?.path) ?? known.path;
    const input = update.rawInput && typeof update.rawInput === 'object' ? (update.rawInput as Json) : {};
    known.command = COMMAND_FIELDS.map((field) => str(input[field])).find(Boolean) ?? known.command;
    calls.set(update.toolCallId, known);
    return known;
  };
  // Set when svc's cancel began: the calls open then were cut short, whatever the agent says of them.
  let cutShort: Set<Known> | undefined;
  const resolve = (known: Known, status: AgentToolStatus) => {
    if (known.resolved) return;
    known.resolved = true;
    const tool = known.name ?? known.kind ?? 'tool';
    // `Write notes.txt`, `execute: npm test`, else the agent's own title with its paths made relative.
    const summary = known.command
      ? `${tool}: ${known.command}`
      : known.path
        ? `${tool} ${shorten(known.path)}`
        : (known.title?.split(`${cwd}/`).join('') ?? tool);
    emit(toolCall(tool, summary, status));
  };
  return {
    /** A `tool_call` or `tool_call_update` notification. */
    update(update: ToolCall | ToolCallUpdate): void {
      const known = merge(update);
      // A command the cancel aborted is reported `completed` by some agents (Gemini CLI's shell): it did not complete.
      if (update.status === 'completed') resolve(known, cutShort?.has(known) ? 'failed' : 'ok');
      else if (update.status === 'failed') resolve(known, 'failed');
    },
    /** The kind the call's earlier updates gave: a later one may leave out what did not change (ACP). */
    kindOf(toolCallId: string): string | undefined {
      return calls.get(toolCallId)?.kind;
    },
    /**
     * svc's answer to a permission request for `toolCall`: a refused call ends here, denied. One
     * asked while svc cancels the turn is no refusal of svc's level: it stays open, cut short.
     */
    permission(toolCall: ToolCallUpdate, allowed: boolean, cancelling = false): void {
      const known = merge(toolCall);
      if (cancelling) cutShort?.add(known);
      else if (!allowed) resolve(known, 'denied');
    },
    /** svc's cancel began: the calls open now are cut short. */
    cancel(): void {
      cutShort ??= new Set([...calls.values()].filter((known) => !known.resolved));
    },
    /** The turn ended cancelled: each call cut short that the agent did not resolve itself failed. */
    endCancelled(): void {
      for (const known of cutShort ?? []) resolve(known, 'failed');
    },
  };
}
