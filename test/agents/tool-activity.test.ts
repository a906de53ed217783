// Tool calls read from the agents' own output: recorded lines of the shapes Claude Code 2.1.x
// (`-p --output-format stream-json --verbose`) and Codex 0.16x (`exec --json`) print
// (docs/decisions.md, "Tool activity"; shared notes, ecosystem §9).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeToolTracker } from '../../src/agents/claude-tools.js';
import { codexToolReader } from '../../src/agents/codex-tools.js';
import {
  emptyToolTally,
  oneLine,
  tallyToolCall,
  TOOL_EVENTS_MAX,
  TOOL_SUMMARY_MAX,
  TOOLS_DENIED_KEPT,
  type AgentToolCall,
} from '../../src/agents/tool-activity.js';
import { deniedToolsNote } from '../../src/client/tool-activity.js';

type Json = Record<string, any>;

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'svc-tools-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

const SESSION = '7f0b6c1e-2a4d-4c1b-9a53-0d6f1e2b3c4d';
const DENIAL = (path: string) => `Claude requested permissions to write to ${path}, but you haven't granted it yet.`;

const init = () => ({
  type: 'system',
  subtype: 'init',
  cwd,
  session_id: SESSION,
  tools: ['Bash', 'Edit', 'Read', 'Write'],
  model: 'claude-sonnet-4-5',
  permissionMode: 'default',
});
const toolUse = (id: string, name: string, input: Json) => ({
  type: 'assistant',
  message: {
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'tool_use', id, name, input }],
    stop_reason: null,
  },
  parent_tool_use_id: null,
  session_id: SESSION,
});
const toolResult = (id: string, content: unknown, isError = false) => ({
  type: 'user',
  message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] },
  parent_tool_use_id: null,
  session_id: SESSION,
});
const denied = (fields: Json) => ({ type: 'system', subtype: 'permission_denied', session_id: SESSION, ...fields });
const result = (fields: Json = {}) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result: 'DONE',
  session_id: SESSION,
  total_cost_usd: 0.01,
  ...fields,
});

function readClaude(lines: Json[]): AgentToolCall[] {
  const calls: AgentToolCall[] = [];
  const read = claudeToolTracker(cwd, (call) => calls.push(call));
  for (const line of lines) read(line);
  return calls;
}

describe('claude stream-json', () => {
  const writeInput = (file: string) => ({ file_path: file, content: 'export const add = (a, b) => a + b;\n' });

  it('pairs each tool_use with its tool_result: ok, failed, and a denied Write counted once', () => {
    const write = writeInput(join(cwd, 'src/math.js'));
    const calls = readClaude([
      init(),
      toolUse('toolu_01', 'Write', write),
      denied({ tool_name: 'Write', tool_use_id: 'toolu_01', message: DENIAL(write.file_path) }),
      toolResult('toolu_01', DENIAL(write.file_path), true),
      toolUse('toolu_02', 'Bash', { command: 'npm test', description: 'Run the tests' }),
      toolResult('toolu_02', [{ type: 'text', text: '> test\n\n1 passing' }]),
      toolUse('toolu_03', 'Bash', { command: 'npm run lint', description: 'Lint' }),
      toolResult('toolu_03', 'Exit code 1\nerror: no-unused-vars', true),
      { type: 'assistant', message: { id: 'msg_4', role: 'assistant', content: [{ type: 'text', text: 'DONE' }] }, session_id: SESSION },
      result({ permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_01', tool_input: write }] }),
    ]);
    expect(calls).toEqual([
      { tool: 'Write', summary: 'Write src/math.js', status: 'denied' },
      { tool: 'Bash', summary: 'Bash: npm test', status: 'ok' },
      { tool: 'Bash', summary: 'Bash: npm run lint', status: 'failed' },
    ]);
  });

  it('matches a permission_denied line without a tool_use_id to the pending call of that tool', () => {
    const write = writeInput(join(cwd, 'src/a.ts'));
    const calls = readClaude([
      toolUse('toolu_10', 'Read', { file_path: join(cwd, 'package.json') }),
      toolResult('toolu_10', '{ "name": "x" }'),
      toolUse('toolu_11', 'Write', write),
      denied({ tool_name: 'Write', message: DENIAL(write.file_path) }),
      toolResult('toolu_11', DENIAL(write.file_path), true),
      result({ permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_11', tool_input: write }] }),
    ]);
    expect(calls).toEqual([
      { tool: 'Read', summary: 'Read package.json', status: 'ok' },
      { tool: 'Write', summary: 'Write src/a.ts', status: 'denied' },
    ]);
  });

  it("recognises a refusal by Claude Code's words when the tool_result comes first, and does not count a later line again", () => {
    const calls = readClaude([
      toolUse('toolu_20', 'Bash', { command: "sh -c 'echo hi > f'" }),
      toolResult('toolu_20', "Claude requested permissions to use Bash, but you haven't granted it yet.", true),
      denied({ tool_name: 'Bash', message: "Claude requested permissions to use Bash, but you haven't granted it yet." }),
      result(),
    ]);
    expect(calls).toEqual([{ tool: 'Bash', summary: "Bash: sh -c 'echo hi > f'", status: 'denied' }]);
  });

  it("takes the result line's permission_denials for a refused call nothing else reported", () => {
    const write = writeInput('/elsewhere/notes.md');
    const calls = readClaude([
      toolUse('toolu_30', 'Write', write),
      result({ permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_30', tool_input: write }] }),
    ]);
    expect(calls).toEqual([{ tool: 'Write', summary: 'Write /elsewhere/notes.md', status: 'denied' }]);
  });

  it('reports a call only once it resolves, and ignores results of calls it never saw', () => {
    const calls = readClaude([toolUse('toolu_40', 'Bash', { command: 'sleep 100' }), toolResult('toolu_99', 'stray')]);
    expect(calls).toEqual([]);
  });

  it('never puts what a tool writes into the summary', () => {
    const calls = readClaude([
      toolUse('toolu_50', 'Write', { file_path: join(cwd, 'secret.txt'), content: 'TOP-SECRET-CONTENT' }),
      toolResult('toolu_50', 'File created successfully'),
      toolUse('toolu_51', 'Edit', { file_path: join(cwd, 'a.js'), old_string: 'OLD-TEXT', new_string: 'NEW-TEXT' }),
      toolResult('toolu_51', 'ok'),
      toolUse('toolu_52', 'mcp__svc__start_run', { workflow: 'review', message: 'PRIVATE-MESSAGE' }),
      toolResult('toolu_52', 'started'),
    ]);
    expect(calls.map((call) => call.summary)).toEqual(['Write secret.txt', 'Edit a.js', 'mcp__svc__start_run']);
    expect(JSON.stringify(calls)).not.toMatch(/TOP-SECRET|OLD-TEXT|NEW-TEXT|PRIVATE/);
  });

  it('makes hostile input one bounded line: no escape sequences, control characters or line breaks', () => {
    const command = `\x1b[2J\x1b]0;pwned\x07echo hi\r\nrm -rf / \u202e${'x'.repeat(500)}`;
    const [call] = readClaude([toolUse('toolu_60', 'Bash\x1b[31m\n', { command }), toolResult('toolu_60', 'ok')]);
    expect(call!.tool).toBe('Bash');
    expect(call!.summary.startsWith('Bash: echo hi rm -rf / xxx')).toBe(true);
    expect([...call!.summary].length).toBeLessThanOrEqual(TOOL_SUMMARY_MAX);
    expect(call!.summary.endsWith('…')).toBe(true);
    expect(call!.summary).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
});

describe('codex exec --json', () => {
  const read = (lines: Json[]) => {
    const readLine = codexToolReader(cwd);
    return lines.map((line) => readLine(line)).filter(Boolean);
  };

  it('reads command_execution and file_change items when they complete', () => {
    const calls = read([
      { type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
      { type: 'turn.started' },
      {
        type: 'item.started',
        item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'npm test'", aggregated_output: '', exit_code: null, status: 'in_progress' },
      },
      {
        type: 'item.completed',
        item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'npm test'", aggregated_output: '1 failing\n', exit_code: 1, status: 'failed' },
      },
      {
        type: 'item.completed',
        item: { id: 'item_2', type: 'command_execution', command: '/bin/bash -lc ls', aggregated_output: 'src\n', exit_code: 0, status: 'completed' },
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_3',
          type: 'file_change',
          changes: [
            { path: join(cwd, 'src/math.js'), kind: 'update' },
            { path: join(cwd, 'src/new.js'), kind: 'add' },
          ],
          status: 'completed',
        },
      },
      {
        type: 'item.completed',
        item: { id: 'item_4', type: 'command_execution', command: 'rm -rf build', aggregated_output: '', exit_code: null, status: 'declined' },
      },
      { type: 'item.completed', item: { id: 'item_5', type: 'agent_message', text: 'done' } },
      { type: 'turn.completed', usage: { input_tokens: 120, cached_input_tokens: 0, output_tokens: 30 } },
    ]);
    expect(calls).toEqual([
      { tool: 'exec', summary: 'exec: npm test (exit 1)', status: 'failed' },
      { tool: 'exec', summary: 'exec: ls', status: 'ok' },
      { tool: 'patch', summary: 'patch: update src/math.js, add src/new.js', status: 'ok' },
      { tool: 'exec', summary: 'exec: rm -rf build', status: 'denied' },
    ]);
  });

  it('says a command failed when the read-only sandbox refused its write (exit code, status failed)', () => {
    const [call] = read([
      {
        type: 'item.completed',
        item: {
          id: 'item_0',
          type: 'command_execution',
          command: "bash -lc 'sleep 1; echo x > f'",
          aggregated_output: 'bash: f: Read-only file system\n',
          exit_code: 1,
          status: 'failed',
        },
      },
    ]);
    expect(call).toEqual({ tool: 'exec', summary: 'exec: sleep 1; echo x > f (exit 1)', status: 'failed' });
  });

  it('keeps the exit code when a long command is cut', () => {
    const [call] = read([
      { type: 'item.completed', item: { type: 'command_execution', command: `echo ${'y'.repeat(400)}`, exit_code: 127, status: 'failed' } },
    ]);
    expect(call!.summary.endsWith('… (exit 127)')).toBe(true);
    expect([...call!.summary].length).toBeLessThanOrEqual(TOOL_SUMMARY_MAX);
  });
});

/**
 * Lines the pinned real CLIs (Claude Code 2.1.328, Codex 0.169.0) printed in test/agents-real's
 * setting: driven through svc's flags for `read` and `edit` against the model stand-ins
 * (test/support/model-standins.ts), which ask for a `Write` of claude-wrote.txt and a `Bash`
 * (claude) or an `exec_command` (codex) of `sleep 1; echo ran > <agent>-ran.txt`. `$CWD` stands
 * for the directory the agent ran in, `$HOME` for its home.
 */
function recordedRealLines(name: string): Json[] {
  const text = readFileSync(new URL(`./recorded/${name}.jsonl`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line.replaceAll('$CWD', cwd).replaceAll('$HOME', cwd)) as Json);
}

describe('recorded output of the real CLIs', () => {
  it('claude read: a permission_denied line and an is_error tool_result for each call, each reported once as denied', () => {
    const lines = recordedRealLines('claude-read');
    expect(lines.filter((line) => line.subtype === 'permission_denied').map((line) => line.tool_name)).toEqual(['Write', 'Bash']);
    expect(readClaude(lines)).toEqual([
      { tool: 'Write', summary: 'Write claude-wrote.txt', status: 'denied' },
      { tool: 'Bash', summary: 'Bash: sleep 1; echo ran > claude-ran.txt', status: 'denied' },
    ]);
  });

  it('claude edit: both calls ran', () => {
    expect(readClaude(recordedRealLines('claude-edit'))).toEqual([
      { tool: 'Write', summary: 'Write claude-wrote.txt', status: 'ok' },
      { tool: 'Bash', summary: 'Bash: sleep 1; echo ran > claude-ran.txt', status: 'ok' },
    ]);
  });

  const readCodex = (lines: Json[]) => {
    const readLine = codexToolReader(cwd);
    return lines.map((line) => readLine(line)).filter(Boolean);
  };

  it("codex read: the read-only sandbox's refusal is a failed command (exit 1); codex's own error item is no tool call", () => {
    expect(readCodex(recordedRealLines('codex-read'))).toEqual([
      { tool: 'exec', summary: 'exec: sleep 1; echo ran > codex-ran.txt (exit 1)', status: 'failed' },
    ]);
  });

  it('codex edit: the command ran', () => {
    expect(readCodex(recordedRealLines('codex-edit'))).toEqual([{ tool: 'exec', summary: 'exec: sleep 1; echo ran > codex-ran.txt', status: 'ok' }]);
  });
});

describe('oneLine', () => {
  it('drops lone surrogates (PostgreSQL jsonb refuses them) and keeps real characters', () => {
    expect(oneLine('a\ud800b 😀')).toBe('ab 😀');
  });
});

describe('what a node keeps of its calls', () => {
  it('counts every call, names the first refused ones, and announces a bounded number', () => {
    const tally = emptyToolTally();
    const announced: boolean[] = [];
    for (let i = 0; i < TOOL_EVENTS_MAX + 5; i++)
      announced.push(tallyToolCall(tally, { tool: 'Write', summary: `Write f${i}`, status: i % 2 ? 'ok' : 'denied' }));
    expect(tally.toolCalls).toBe(TOOL_EVENTS_MAX + 5);
    expect(tally.toolsDeniedCount).toBe(Math.ceil((TOOL_EVENTS_MAX + 5) / 2));
    expect(tally.toolsDenied).toHaveLength(TOOLS_DENIED_KEPT);
    expect(tally.toolsDenied[1]).toBe('Write f2');
    expect(announced.filter(Boolean)).toHaveLength(TOOL_EVENTS_MAX);
    expect(announced.at(-1)).toBe(false);
  });

  it("says how many calls a run's agents were refused, naming three", () => {
    const node = (denied: string[], count = denied.length) => ({ toolCalls: 9, toolsDenied: denied, toolsDeniedCount: count }) as any;
    expect(deniedToolsNote({ nodes: { a: node([]), b: {} as any } })).toBeUndefined();
    expect(deniedToolsNote({ nodes: { a: node(['Write a.ts']) } })).toBe('the agent was denied 1 tool call: Write a.ts');
    expect(deniedToolsNote({ nodes: { a: node(['Write a.ts', 'Bash: x']), b: node(['Edit b.ts', 'Write c.ts']) } })).toBe(
      'the agent was denied 4 tool calls: Write a.ts, Bash: x, Edit b.ts, …',
    );
    expect(deniedToolsNote({ nodes: { a: node(['Write a.ts'], 30) } })).toBe('the agent was denied 30 tool calls: Write a.ts, …');
  });
});
