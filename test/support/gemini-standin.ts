/**
 * A local stand-in of the Gemini API as Gemini CLI 0.61 calls it offline (shared notes §11; the
 * real-agent tier, test/agents-real/gemini.test.ts): `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`,
 * answered as SSE of `candidates[].content.parts[]` — a `functionCall` the CLI runs, or text — with
 * `usageMetadata`. What it answers is read from the conversation it is sent: a user text naming
 * `WRITE <path>` gets a `write_file` call, `SHELL <command>` a `run_shell_command` call, `HANG` no
 * answer at all (the stream stays open and silent); a request bringing a function's response back
 * gets `finalText`; anything else (the CLI's own side requests) a short text.
 */

import type { ServerResponse } from 'node:http';
import { listen, type StandIn } from './model-standins.js';

type Json = Record<string, any>;

/** The texts of the request's contents, oldest first, each with its role. */
export const geminiTexts = (body: Json | null): Array<{ role: string; text: string }> =>
  ((body?.contents as Json[] | undefined) ?? []).flatMap((content) =>
    ((content.parts as Json[] | undefined) ?? [])
      .filter((part) => typeof part.text === 'string')
      .map((part) => ({ role: String(content.role), text: part.text as string })),
  );

/** The function responses the CLI sent back (what its tool calls returned, or that they were refused). */
export const geminiFunctionResponses = (standIn: StandIn): Json[] =>
  standIn.requests.flatMap((request) =>
    ((request.body?.contents as Json[] | undefined) ?? []).flatMap((content) =>
      ((content.parts as Json[] | undefined) ?? []).filter((part) => part.functionResponse).map((part) => part.functionResponse as Json),
    ),
  );

function answer(res: ServerResponse, parts: Json[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
    modelVersion: 'gemini-2.5-flash',
  };
  res.end(`data: ${JSON.stringify(chunk)}\n\n`);
}

export function startGeminiStandIn(finalText: string, reply: (texts: string[]) => string | undefined = () => undefined): Promise<StandIn> {
  return listen((req, body, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method !== 'POST' || !/^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { code: 404, message: `no ${path}`, status: 'NOT_FOUND' } }));
    }
    const contents = (body?.contents as Json[] | undefined) ?? [];
    const last = contents.at(-1);
    if (((last?.parts as Json[] | undefined) ?? []).some((part) => part.functionResponse)) return answer(res, [{ text: finalText }]);
    const users = geminiTexts(body)
      .filter((entry) => entry.role === 'user')
      .map((entry) => entry.text);
    const asked = users.at(-1) ?? '';
    if (asked.includes('HANG')) return; // no answer: the CLI waits, silent
    const write = /WRITE (\S+)/.exec(asked);
    if (write) return answer(res, [{ functionCall: { name: 'write_file', args: { file_path: write[1], content: 'written by the real gemini\n' } } }]);
    const shell = /SHELL (.+)$/m.exec(asked);
    if (shell) return answer(res, [{ functionCall: { name: 'run_shell_command', args: { command: shell[1], description: 'Run the command' } } }]);
    answer(res, [{ text: reply(users) ?? 'ok' }]);
  });
}
