import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/**
 * One tool call of an agent, once it resolved (docs/decisions.md, "Tool activity"): the tool's
 * name, a one-line summary of what it was asked to do (`Write src/math.js`, `Bash: npm test`,
 * `exec: npm test (exit 1)`), never the contents it wrote, and how it ended.
 */
export interface AgentToolCall {
  tool: string;
  summary: string;
  /** `denied`: the agent's own permission checks refused it; `failed`: it ran and failed. */
  status: AgentToolStatus;
}

export const AGENT_TOOL_STATUSES = ['ok', 'denied', 'failed'] as const;
export type AgentToolStatus = (typeof AGENT_TOOL_STATUSES)[number];

/** What a node (or a reply) records of its agent's tool calls (docs/decisions.md, "Tool activity"). */
export interface ToolTally {
  toolCalls: number;
  /** Summaries of the refused calls, the first TOOLS_DENIED_KEPT: a runaway agent cannot grow a record without bound. */
  toolsDenied: string[];
  toolsDeniedCount: number;
}

export const TOOLS_DENIED_KEPT = 20;

/**
 * `agent_tool` events per node (or reply): past this, calls are only counted. Like node output
 * (64 KiB of events per node), what a runaway agent can add to a run's events is bounded.
 */
export const TOOL_EVENTS_MAX = 1000;

export const emptyToolTally = (): ToolTally => ({ toolCalls: 0, toolsDenied: [], toolsDeniedCount: 0 });

/**
 * Counts a resolved call; a refused one is also named, while there is room. Says whether the call
 * is still to be announced as an event (the first TOOL_EVENTS_MAX are).
 */
export function tallyToolCall(tally: Partial<ToolTally>, call: AgentToolCall): boolean {
  tally.toolCalls = (tally.toolCalls ?? 0) + 1;
  if (call.status === 'denied') {
    tally.toolsDeniedCount = (tally.toolsDeniedCount ?? 0) + 1;
    const denied = (tally.toolsDenied ??= []);
    if (denied.length < TOOLS_DENIED_KEPT) denied.push(call.summary);
  }
  return tally.toolCalls <= TOOL_EVENTS_MAX;
}

/** A summary's length bound, in characters: one line of a terminal or a dashboard row. */
export const TOOL_SUMMARY_MAX = 120;
const TOOL_NAME_MAX = 64;

// Agent output is hostile text: escape sequences would repaint a terminal that prints the summary,
// and line or bidi controls would make one call look like several, or like something else.
const TERMINAL_SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
// A lone surrogate is not text, and PostgreSQL's jsonb refuses it.
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text made safe for one line: no control characters or escape sequences, spaces collapsed, at most `max` characters. */
export function oneLine(text: string, max = TOOL_SUMMARY_MAX): string {
  const flat = text.replace(TERMINAL_SEQUENCES, '').replace(LONE_SURROGATES, '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= max
    ? flat
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}

/** A tool's name as the agent gave it, made safe (summaries begin with it). */
export const toolName = (name: string): string => oneLine(name, TOOL_NAME_MAX) || 'tool';

/** A tool call with its name and summary made safe; `suffix` (an exit code) survives the cut. */
export function toolCall(tool: string, summary: string, status: AgentToolStatus, suffix = ''): AgentToolCall {
  return { tool: toolName(tool), summary: oneLine(summary, TOOL_SUMMARY_MAX - suffix.length) + suffix, status };
}

/**
 * Paths as the person reading the run knows them: relative to the run's directory when inside it
 * (agents report absolute paths, and the worktree's own path says nothing), else as given.
 */
export function pathShortener(cwd: string): (path: string) => string {
  const roots = [cwd];
  try {
    const real = realpathSync(cwd);
    if (real !== cwd) roots.push(real);
  } catch {
    // a directory that is gone only loses the shortening
  }
  return (path) => {
    if (!isAbsolute(path)) return path;
    for (const root of roots) {
      const inside = relative(root, path);
      if (inside && !inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside)) return inside;
    }
    return path;
  };
}
