// Tool activity end to end (docs/decisions.md, "Tool activity"): the fake agents print recorded
// tool calls of the real CLIs, and a real server turns them into `agent_tool` events on the run's
// stream (live and replayed), counts on the node record, and events on a conversation's stream —
// on the file store and on PostgreSQL (events are stored as JSON in both).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeToolLines, codexToolLines, writeLines } from '../helpers/recorded-lines.js';
import { connect, createConversation, FAKE_CODEX, send, waitForReply } from '../helpers/conversations.js';
import type { TestServer } from '../helpers/server.js';
import { usePostgres } from '../support/postgres.js';
import { cleanupAll, startRun, startServer, tempDir, waitForRun, writeWorkflows, type Json } from '../helpers/runs.js';

const postgres = usePostgres();
let project: string;
let conversationLines: string;

beforeAll(async () => {
  const recorded = await tempDir('svc-recorded-');
  // The lines name files in the run's directory, as the agents do.
  project = await tempDir('svc-tools-project-');
  const claude = await writeLines(recorded, 'claude.jsonl', claudeToolLines(project));
  const codex = await writeLines(recorded, 'codex.jsonl', codexToolLines(project));
  await writeWorkflows(project, [
    {
      name: 'tools',
      nodes: [
        { id: 'prep', bash: 'echo ready' },
        { id: 'impl', prompt: `Implement it [fake:lines=${claude}] [fake:reply=DONE]`, depends_on: ['prep'] },
        { id: 'check', prompt: `Check it [fake:lines=${codex}]`, assistant: 'codex', depends_on: ['impl'] },
      ],
    },
  ]);
  // The conversation answers in the server's working directory: its lines name files there.
  conversationLines = await writeLines(recorded, 'conversation.jsonl', claudeToolLines(process.cwd()));
});
afterAll(cleanupAll);

const toolEvents = (events: Json[], runId?: string) =>
  events
    .filter((e) => e.type === 'agent_tool' && (runId === undefined || e.runId === runId))
    .map(({ nodeId, tool, summary, status }) => ({ nodeId, tool, summary, status }));

const EXPECTED = [
  { nodeId: 'impl', tool: 'Write', summary: 'Write src/math.js', status: 'denied' },
  { nodeId: 'impl', tool: 'Bash', summary: 'Bash: npm test', status: 'ok' },
  { nodeId: 'check', tool: 'exec', summary: 'exec: npm test (exit 1)', status: 'failed' },
  { nodeId: 'check', tool: 'patch', summary: 'patch: update src/math.js', status: 'ok' },
];

const STORES = [
  { store: 'file', env: async (): Promise<Record<string, string>> => ({}) },
  { store: 'PostgreSQL', env: async (): Promise<Record<string, string>> => ({ SVC_DATABASE_URL: await postgres.createDatabase() }) },
];

describe.each(STORES)('on the $store store', ({ env }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { SVC_CODEX_BIN: FAKE_CODEX, ...(await env()) } });
  });

  describe('a run whose agents use tools', () => {
    let run: Json;
    let live: Json[];

    beforeAll(async () => {
      const stream = await connect(server, '/api/stream/__dashboard__');
      const runId = await startRun(server, 'tools', { message: 'add a function', cwd: project });
      await stream.until((events) => events.some((e) => e.runId === runId && e.type === 'run_completed'));
      live = stream.events.filter((e) => e.runId === runId);
      stream.close();
      run = await waitForRun(server, runId);
    });

    it('streams each resolved call as agent_tool, with its node, tool, one-line summary and status; a refusal once', () => {
      expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
      expect(toolEvents(live)).toEqual(EXPECTED);
    });

    it("puts each call between its node's start and its end", () => {
      const seqOf = (type: string, nodeId: string) => live.find((e) => e.type === type && e.nodeId === nodeId)!.seq as number;
      for (const event of live.filter((e) => e.type === 'agent_tool')) {
        expect(event.seq).toBeGreaterThan(seqOf('node_started', event.nodeId));
        expect(event.seq).toBeLessThan(seqOf('node_completed', event.nodeId));
      }
    });

    it('counts the calls on each agent node and names the refused ones; a bash node has no count', () => {
      expect(run.nodes.impl).toMatchObject({ toolCalls: 2, toolsDenied: ['Write src/math.js'], toolsDeniedCount: 1 });
      expect(run.nodes.check).toMatchObject({ toolCalls: 2, toolsDenied: [], toolsDeniedCount: 0 });
      expect(run.nodes.prep.toolCalls).toBeUndefined();
    });

    it("keeps the calls with the run's events: the detail and a replay of the stream show them", async () => {
      expect(toolEvents(run.events)).toEqual(EXPECTED);
      const replay = await connect(server, `/api/stream/__dashboard__?runId=${run.id}&lastEventId=0`);
      await replay.until((events) => events.some((e) => e.type === 'run_completed'));
      expect(toolEvents(replay.events, run.id)).toEqual(EXPECTED);
    });
  });

  describe('a conversation whose agent uses tools', () => {
    it("streams agent_tool events for the message being answered, and the reply's metadata counts them", async () => {
      const conversation = await createConversation(server);
      const stream = await connect(server, `/api/stream/${conversation.platform_conversation_id}`);
      const messageId = await send(server, conversation.id, `make it so [fake:lines=${conversationLines}] [fake:reply=done]`);
      await stream.until((events) => events.some((e) => e.type === 'assistant_done'));
      const tools = stream.events.filter((e) => e.type === 'agent_tool');
      expect(tools.map(({ messageId: id, conversationId, tool, summary, status }) => ({ id, conversationId, tool, summary, status }))).toEqual([
        { id: messageId, conversationId: conversation.id, tool: 'Write', summary: 'Write src/math.js', status: 'denied' },
        { id: messageId, conversationId: conversation.id, tool: 'Bash', summary: 'Bash: npm test', status: 'ok' },
      ]);
      const types = stream.events.map((e) => e.type);
      expect(types.lastIndexOf('agent_tool')).toBeLessThan(types.indexOf('assistant_done'));
      const reply = await waitForReply(server, conversation.id, messageId);
      expect(reply.metadata).toMatchObject({ toolCalls: 2, toolsDenied: ['Write src/math.js'], toolsDeniedCount: 1 });
    });
  });
});
