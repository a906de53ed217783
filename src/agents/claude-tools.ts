import { pathShortener, toolCall, toolName, type AgentToolCall } from './tool-activity.js';

type Json = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);
const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((v): v is Json => Boolean(v) && typeof v === 'object') : []);

/** Tools whose input names one file: the summary is the tool and that path. */
const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'Read', 'NotebookEdit', 'NotebookRead', 'LS']);

/**
 * Which input fields a summary may show, in order of preference. Only these: a tool's input also
 * carries what it writes (`content`, `new_string`), which never belongs in a one-line summary.
 */
const SHOWN_FIELDS = ['file_path', 'notebook_path', 'path', 'command', 'pattern', 'url', 'query', 'description'] as const;

/** `Write src/math.js`, `Bash: npm test`, `Grep: parseConfig`, or the bare name when nothing safe says more. */
function describe(name: string, input: Json, shorten: (path: string) => string): string {
  if (FILE_TOOLS.has(name)) {
    const path = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path);
    return path ? `${name} ${shorten(path)}` : name;
  }
  for (const field of SHOWN_FIELDS) {
    const value = str(input[field]);
    if (value) return `${name}: ${field.endsWith('path') ? shorten(value) : value}`;
  }
  return name;
}

/** Claude Code's words when its permission checks refuse a call (the tool_result of a denied call). */
const DENIAL_TEXT = /^Claude requested permissions? to .* but you haven't granted it yet/is;

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}

/**
 * Turns Claude Code's stream-json lines into resolved tool calls. A call is an assistant message's
 * `tool_use` block (id, name, input), resolved by the `tool_result` with its `tool_use_id` in a user
 * message (`is_error` → failed), or refused: a `system` line `permission_denied` (`tool_name`, maybe
 * `tool_use_id`), which Claude Code follows with an `is_error` tool_result for the same call, or the
 * result line's `permission_denials`. Each call is reported once, when it resolves; a refusal
 * is `denied` however many of those lines say so.
 */
export function claudeToolTracker(cwd: string, onTool: (call: AgentToolCall) => void): (line: Json) => void {
  const shorten = pathShortener(cwd);
  /** Calls asked for and not yet resolved, in the order asked. */
  const pending = new Map<string, { name: string; input: Json }>();
  const resolved = new Set<string>();
  /** Calls reported denied from their tool_result alone, which a later `permission_denied` line without an id must not count again. */
  const deniedUnannounced: Array<{ id: string; name: string }> = [];

  const report = (id: string | undefined, name: string, input: Json, status: AgentToolCall['status']) => {
    if (id !== undefined) {
      pending.delete(id);
      resolved.add(id);
    }
    onTool(toolCall(name, describe(name, input, shorten), status));
  };

  const denied = (denial: Json) => {
    const name = toolName(str(denial.tool_name) ?? 'tool');
    let id = str(denial.tool_use_id);
    if (id !== undefined) {
      const known = deniedUnannounced.findIndex((call) => call.id === id);
      if (known >= 0) deniedUnannounced.splice(known, 1);
    } else {
      const announced = deniedUnannounced.findIndex((call) => call.name === name);
      if (announced >= 0) return void deniedUnannounced.splice(announced, 1);
      id = [...pending].find(([, call]) => call.name === name)?.[0];
    }
    if (id !== undefined && resolved.has(id)) return;
    const call = id !== undefined ? pending.get(id) : undefined;
    report(id, call?.name ?? name, call?.input ?? obj(denial.tool_input), 'denied');
  };

  return (line) => {
    if (line.type === 'system' && line.subtype === 'permission_denied') return denied(line);
    if (line.type === 'result') {
      // A last word on refusals: only calls not already reported.
      for (const denial of list(line.permission_denials)) if (str(denial.tool_use_id)) denied(denial);
      return;
    }
    if (line.type !== 'assistant' && line.type !== 'user') return;
    for (const part of list(obj(line.message).content)) {
      if (part.type === 'tool_use') {
        const id = str(part.id);
        if (id && !resolved.has(id)) pending.set(id, { name: toolName(str(part.name) ?? 'tool'), input: obj(part.input) });
      } else if (part.type === 'tool_result') {
        const id = str(part.tool_use_id);
        const call = id === undefined ? undefined : pending.get(id);
        if (id === undefined || !call) continue; // already reported, or not asked for in this stream
        const refused = part.is_error === true && DENIAL_TEXT.test(resultText(part.content).trim());
        if (refused) deniedUnannounced.push({ id, name: call.name });
        report(id, call.name, call.input, refused ? 'denied' : part.is_error === true ? 'failed' : 'ok');
      }
    }
  };
}
