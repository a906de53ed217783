import { pathShortener, toolCall, type AgentToolCall } from './tool-activity.js';

type Json = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Codex runs every command through a shell (`/bin/bash -lc 'npm test'`); the summary shows the
 * command the model wrote.
 */
function unwrapShell(command: string): string {
  const wrapped = /^(?:\S*\/)?(?:ba|z)?sh\s+-l?c\s+(?:(['"])([\s\S]*)\1|([^'"][\s\S]*))$/.exec(command.trim());
  return wrapped ? (wrapped[2] ?? wrapped[3]!) : command;
}

/** `command` is a string, or an argv array in some versions. */
const commandText = (command: unknown): string => (Array.isArray(command) ? command.map(String).join(' ') : str(command));

/**
 * Turns `codex exec --json` lines into resolved tool calls, each reported by its `item.completed`
 * (docs/decisions.md, "Tool activity"): `command_execution` (`command`, `exit_code`, `status`),
 * `file_change` (`changes: [{path, kind}]`, `status`), `mcp_tool_call` (`server`, `tool`, `status`)
 * and `web_search` (`query`). A command that exits non-zero or whose status is `failed` failed; one
 * whose status is `declined` (refused by codex's approval policy) was denied.
 */
export function codexToolReader(cwd: string): (line: Json) => AgentToolCall | undefined {
  const shorten = pathShortener(cwd);
  return (line) => {
    if (line.type !== 'item.completed') return undefined;
    const item = (line.item ?? {}) as Json;
    const failed = item.status === 'failed';
    const denied = item.status === 'declined';
    switch (item.type) {
      case 'command_execution': {
        const exit = typeof item.exit_code === 'number' ? item.exit_code : null;
        const status = denied ? 'denied' : failed || (exit !== null && exit !== 0) ? 'failed' : 'ok';
        return toolCall('exec', `exec: ${unwrapShell(commandText(item.command))}`, status, exit !== null && exit !== 0 ? ` (exit ${exit})` : '');
      }
      case 'file_change': {
        const changes = (Array.isArray(item.changes) ? item.changes : []) as Json[];
        const what = changes.map((change) => `${str(change.kind) || 'change'} ${shorten(str(change.path))}`).join(', ');
        return toolCall('patch', `patch: ${what || 'no files'}`, denied ? 'denied' : failed ? 'failed' : 'ok');
      }
      case 'mcp_tool_call': {
        const name = [str(item.server), str(item.tool)].filter(Boolean).join('.');
        return toolCall('mcp', `mcp: ${name || 'tool'}`, denied ? 'denied' : failed || item.error ? 'failed' : 'ok');
      }
      case 'web_search':
        return toolCall('web_search', `web_search: ${str(item.query)}`, failed ? 'failed' : 'ok');
      default:
        return undefined;
    }
  };
}
