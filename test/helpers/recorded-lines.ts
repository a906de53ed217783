// Recorded tool activity of the real CLIs (shapes of Claude Code 2.1.x stream-json and Codex 0.16x
// `exec --json`, docs/decisions.md, "Tool activity"), written to a file that the fake agents print
// with `[fake:lines=FILE]`: end-to-end tests of tool calls without changing how the fakes behave.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

type Json = Record<string, unknown>;

const SESSION = '5c2b3a8e-9d1f-4e6a-8b7c-2f0e1d3c4b5a';

/** A refused `Write` (permission_denied, then its is_error tool_result) and a `Bash` that ran. */
export function claudeToolLines(cwd: string): Json[] {
  const file = join(cwd, 'src/math.js');
  const denial = `Claude requested permissions to write to ${file}, but you haven't granted it yet.`;
  const assistant = (id: string, content: Json[]) => ({
    type: 'assistant',
    message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: null },
    parent_tool_use_id: null,
    session_id: SESSION,
  });
  const user = (content: Json[]) => ({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: SESSION });
  return [
    assistant('msg_01', [
      { type: 'tool_use', id: 'toolu_01Write', name: 'Write', input: { file_path: file, content: 'export const add = (a, b) => a + b;\n' } },
    ]),
    { type: 'system', subtype: 'permission_denied', tool_name: 'Write', tool_use_id: 'toolu_01Write', message: denial, session_id: SESSION },
    user([{ type: 'tool_result', tool_use_id: 'toolu_01Write', content: denial, is_error: true }]),
    assistant('msg_02', [{ type: 'tool_use', id: 'toolu_02Bash', name: 'Bash', input: { command: 'npm test', description: 'Run the tests' } }]),
    user([{ type: 'tool_result', tool_use_id: 'toolu_02Bash', content: '> test\n\n  3 passing', is_error: false }]),
  ];
}

/** A command that failed (exit 1) and a file change. */
export function codexToolLines(cwd: string): Json[] {
  const command = (status: string, exitCode: number | null) => ({
    id: 'item_1',
    type: 'command_execution',
    command: "bash -lc 'npm test'",
    aggregated_output: status === 'in_progress' ? '' : '1 failing\n',
    exit_code: exitCode,
    status,
  });
  return [
    { type: 'item.started', item: command('in_progress', null) },
    { type: 'item.completed', item: command('failed', 1) },
    { type: 'item.completed', item: { id: 'item_2', type: 'file_change', changes: [{ path: join(cwd, 'src/math.js'), kind: 'update' }], status: 'completed' } },
  ];
}

/** Writes recorded lines as JSONL; returns the file's path. */
export async function writeLines(dir: string, name: string, lines: Json[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}
