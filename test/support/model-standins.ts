/**
 * Local stand-ins of the two model APIs the real agent CLIs talk to (docs/decisions.md, "Agent tests";
 * test/agents-real/): a node:http server on 127.0.0.1 and an ephemeral port, so Claude Code and
 * Codex run their whole tool loop offline. The first turn of a task answers with tool calls that
 * write a file and run a command; the turn that brings their results answers with a final text.
 * Every request is recorded, so a test can read what the CLI reported back (a `tool_result` with
 * `is_error`, a `function_call_output`).
 *
 * - Claude Code POSTs `/v1/messages` (answered as an SSE stream, or as one JSON message when it
 *   asks for no stream) and `/v1/messages/count_tokens`.
 * - Codex POSTs `/v1/responses` (answered as an SSE stream).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export interface RecordedRequest {
  method: string;
  path: string;
  body: Json | null;
}

export interface StandIn {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

/** What the claude stand-in asks for on a task's first turn. */
export interface ClaudeScript {
  /** `Write` this file with `content`: a relative path, which Claude Code resolves in its working directory. */
  write: { path: string; content: string };
  /** `Bash` this command. */
  bash: string;
  /** The final text, once the tool results are back. */
  finalText: string;
}

/** What the codex stand-in asks for on a task's first turn. */
export interface CodexScript {
  /** The `exec_command` command line (run by codex in its sandbox). */
  command: string;
  finalText: string;
}

async function readBody(req: IncomingMessage): Promise<Json | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return null;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return { unparsed: text };
  }
}

function sse(res: ServerResponse, events: Json[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function listen(handle: (req: IncomingMessage, body: Json | null, res: ServerResponse) => void): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, body });
      try {
        handle(req, body, res);
      } catch (error) {
        json(res, 500, { error: { type: 'api_error', message: (error as Error).message } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- Anthropic Messages API (Claude Code) ---------------------------------------------------

/** The content blocks of the request's last user message (tool results come back there). */
function lastUserContent(body: Json): Json[] {
  const last = [...((body.messages as Json[]) ?? [])].reverse().find((m) => m.role === 'user');
  return Array.isArray(last?.content) ? (last.content as Json[]) : [];
}

/** The blocks of one assistant message as the stream events that build it. */
/** A Messages API answer with these content blocks: streamed when the request asks for it, else one JSON body. */
function answerMessage(res: ServerResponse, body: Json, model: string, blocks: Json[], stop: string): void {
  if (body.stream) return sse(res, messageEvents(model, blocks, stop));
  json(res, 200, {
    id: `msg_standin_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
}

function messageEvents(model: string, blocks: Json[], stopReason: string): Json[] {
  const events: Json[] = [
    {
      type: 'message_start',
      message: {
        id: `msg_standin_${Date.now()}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  events.push({ type: 'message_stop' });
  return events;
}

/**
 * Claude Code's model: a request with no tool result yet gets the tool calls `firstTurn` makes of
 * the tools it offers (none: a short text, as for side requests without tools); one carrying tool
 * results gets `finalText`.
 */
function startClaudeModel(firstTurn: (tools: string[], call: number) => Json[] | undefined, finalText: string): Promise<StandIn> {
  let calls = 0;
  return listen((req, body, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(res, 200, { input_tokens: 10 });
    if (req.method !== 'POST' || path !== '/v1/messages' || !body)
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${path}` } });
    const model = typeof body.model === 'string' ? body.model : 'claude-standin';
    const tools = ((body.tools as Json[] | undefined) ?? []).map((tool) => tool.name as string);
    const returning = lastUserContent(body).some((part) => part.type === 'tool_result');
    const uses = returning ? undefined : firstTurn(tools, calls + 1);
    let blocks: Json[];
    let stop = 'end_turn';
    if (returning) blocks = [{ type: 'text', text: finalText }];
    else if (uses) {
      calls++;
      blocks = uses;
      stop = 'tool_use';
    } else blocks = [{ type: 'text', text: 'ok' }];
    answerMessage(res, body, model, blocks, stop);
  });
}

/** Claude Code's model for a task: a request offering the `Write` tool gets a `Write` and a `Bash` tool_use. */
export function startClaudeStandIn(script: ClaudeScript): Promise<StandIn> {
  return startClaudeModel(
    (tools, call) =>
      tools.includes('Write')
        ? [
            { type: 'tool_use', id: `toolu_standin_write_${call}`, name: 'Write', input: { file_path: script.write.path, content: script.write.content } },
            { type: 'tool_use', id: `toolu_standin_bash_${call}`, name: 'Bash', input: { command: script.bash, description: 'Run the command' } },
          ]
        : undefined,
    script.finalText,
  );
}

/** One call of a named tool (an MCP server's: `mcp__<server>__<tool>`), and the final text once its result is back. */
export interface ClaudeToolCall {
  name: string;
  input: Json;
  finalText: string;
}

/** Claude Code's model calling one tool: the first request offering it gets one `tool_use` of it; later ones only text. */
export function startClaudeToolStandIn(script: ClaudeToolCall): Promise<StandIn> {
  return startClaudeModel(
    (tools, call) =>
      call === 1 && tools.includes(script.name) ? [{ type: 'tool_use', id: 'toolu_standin_1', name: script.name, input: script.input }] : undefined,
    script.finalText,
  );
}

/** The names of the tools each request to `/v1/messages` offered the model. */
export function claudeOfferedTools(standIn: StandIn): string[][] {
  return standIn.requests
    .filter((request) => request.path === '/v1/messages' && request.body)
    .map((request) => ((request.body!.tools as Json[] | undefined) ?? []).map((tool) => tool.name as string));
}

/** Every `tool_result` block Claude Code sent back, in order. */
export function claudeToolResults(standIn: StandIn): Json[] {
  return standIn.requests
    .flatMap((request) => (request.path === '/v1/messages' && request.body ? lastUserContent(request.body) : []))
    .filter((part) => part.type === 'tool_result');
}

// ---- OpenAI Responses API (Codex) -----------------------------------------------------------

function responseEvents(items: Json[]): Json[] {
  const id = `resp_standin_${Date.now()}`;
  const events: Json[] = [{ type: 'response.created', response: { id } }];
  items.forEach((item, index) => {
    events.push({ type: 'response.output_item.added', output_index: index, item });
    events.push({ type: 'response.output_item.done', output_index: index, item });
  });
  events.push({
    type: 'response.completed',
    response: {
      id,
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      },
    },
  });
  return events;
}

/** The request's input items. */
const inputItems = (body: Json): Json[] => (Array.isArray(body.input) ? (body.input as Json[]) : []);

/**
 * Codex's model: a request offering `exec_command` with no call output yet gets an `exec_command`
 * function call; one carrying its output gets `finalText`.
 */
export function startCodexStandIn(script: CodexScript): Promise<StandIn> {
  let calls = 0;
  return listen((req, body, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/responses' || !body) return json(res, 404, { error: { message: `no ${path}` } });
    const tools = ((body.tools as Json[] | undefined) ?? []).map((tool) => (tool.name ?? tool.function?.name) as string);
    const returning = inputItems(body).some((item) => item.type === 'function_call_output');
    let item: Json;
    if (!returning && tools.includes('exec_command')) {
      calls++;
      item = {
        type: 'function_call',
        id: `fc_standin_${calls}`,
        call_id: `call_standin_${calls}`,
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: script.command }),
      };
    } else {
      item = { type: 'message', role: 'assistant', id: `msg_standin_${calls}`, content: [{ type: 'output_text', text: returning ? script.finalText : 'ok' }] };
    }
    sse(res, responseEvents([item]));
  });
}

/** Every `function_call_output` item Codex sent back, in order (first seen). */
export function codexCallOutputs(standIn: StandIn): Json[] {
  const seen = new Map<string, Json>();
  for (const request of standIn.requests) {
    if (request.path !== '/v1/responses' || !request.body) continue;
    for (const item of inputItems(request.body)) if (item.type === 'function_call_output' && !seen.has(item.call_id)) seen.set(item.call_id, item);
  }
  return [...seen.values()];
}

// ---- Nothing else ----------------------------------------------------------------------------

export interface NetworkTrap {
  /** `http://127.0.0.1:<port>`: give it as HTTP(S)_PROXY, with NO_PROXY for the loopback stand-ins. */
  readonly url: string;
  /** Every host a client tried to reach through it (`CONNECT host:443`, or a plain request's URL). */
  readonly attempts: string[];
  close(): Promise<void>;
}

/**
 * A proxy that refuses everything and remembers who asked: with the agents' proxy variables pointing
 * at it, a call to the outside world fails at once instead of leaving the machine, and a test can
 * say that none was tried.
 */
export async function startNetworkTrap(): Promise<NetworkTrap> {
  const attempts: string[] = [];
  const server = createServer((req, res) => {
    attempts.push(req.url ?? '?');
    res.writeHead(403).end();
  });
  server.on('connect', (req: IncomingMessage, socket) => {
    attempts.push(req.url ?? '?');
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- Commands one after another (sandbox tests) ----------------------------------------------

/**
 * Claude Code's model running `commands` through its Bash tool, one per turn: the request carrying
 * k tool results so far gets the (k+1)-th, and after the last one `finalText`. A request whose tools
 * do not include Bash (a side request) gets a short text.
 */
export function startClaudeBashStandIn(commands: ReadonlyArray<string | Json>, finalText: string): Promise<StandIn> {
  return listen((req, body, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(res, 200, { input_tokens: 10 });
    if (req.method !== 'POST' || path !== '/v1/messages' || !body)
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${path}` } });
    const model = typeof body.model === 'string' ? body.model : 'claude-standin';
    const tools = ((body.tools as Json[] | undefined) ?? []).map((tool) => tool.name as string);
    const done = ((body.messages as Json[]) ?? [])
      .flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []))
      .filter((part) => part.type === 'tool_result').length;
    let blocks: Json[] = [{ type: 'text', text: tools.includes('Bash') ? finalText : 'ok' }];
    let stop = 'end_turn';
    if (tools.includes('Bash') && done < commands.length) {
      // A command, or the Bash tool's whole input (`{ command, dangerouslyDisableSandbox }`).
      const asked = commands[done]!;
      const input = typeof asked === 'string' ? { command: asked, description: 'Run the command' } : { description: 'Run the command', ...asked };
      blocks = [{ type: 'tool_use', id: `toolu_standin_bash_${done + 1}`, name: 'Bash', input }];
      stop = 'tool_use';
    }
    answerMessage(res, body, model, blocks, stop);
  });
}

/** Codex's model running `commands` through `exec_command`, one per turn, then `finalText`. */
export function startCodexCommandsStandIn(commands: readonly string[], finalText: string): Promise<StandIn> {
  return listen((req, body, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/responses' || !body) return json(res, 404, { error: { message: `no ${path}` } });
    const tools = ((body.tools as Json[] | undefined) ?? []).map((tool) => (tool.name ?? tool.function?.name) as string);
    const done = inputItems(body).filter((item) => item.type === 'function_call_output').length;
    const item: Json =
      tools.includes('exec_command') && done < commands.length
        ? {
            type: 'function_call',
            id: `fc_standin_${done + 1}`,
            call_id: `call_standin_${done + 1}`,
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: commands[done] }),
          }
        : {
            type: 'message',
            role: 'assistant',
            id: `msg_standin_${done}`,
            content: [{ type: 'output_text', text: tools.includes('exec_command') ? finalText : 'ok' }],
          };
    sse(res, responseEvents([item]));
  });
}

/** Everything the stand-in was sent, as one text (to say that a secret never reached the model). */
export const everythingSent = (standIn: StandIn): string => standIn.requests.map((request) => JSON.stringify(request.body)).join('\n');

/** A plain local HTTP server on 127.0.0.1 that answers 200 "pong" and remembers each request's path. */
export async function startLocalService(): Promise<{ url: string; port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
