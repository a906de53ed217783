// With response validation on (what every test server uses), an answer that is not what its route
// documents — a wrong type, a member the schema does not name, an undocumented status — becomes a
// 500 internal_error and a `response.schema_mismatch` log entry; with it off, answers pass as they are.
import { createServer, type Server } from 'node:http';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { toNodeHandler } from 'h3';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closeContext, createContext, type AppContext } from '../../src/app/context.js';
import { createApp } from '../../src/server/app.js';
import { defineRoute, reply } from '../../src/server/route.js';
import { DomainError } from '../../src/shared/errors.js';
import { loadSettings } from '../../src/shared/settings.js';
import { expectErrorResponse } from '../helpers/error-body.js';
import { makeHome } from '../helpers/server.js';

const Item = z.object({ id: z.string(), count: z.number().int() });

/** Each route answers `answer` from its handler; all document 200 with `Item` and a 404. */
const route = (path: string, answer: () => unknown) =>
  defineRoute({
    method: 'GET',
    path,
    summary: path,
    tag: 'test',
    errors: [404],
    responses: { 200: { description: 'An item', schema: Item } },
    handle: answer,
  });

const routes = [
  route('/ok', () => ({ id: 'a', count: 1 })),
  route('/wrong-type', () => ({ id: 'a', count: 'one' })),
  route('/extra-member', () => ({ id: 'a', count: 1, secret: 'x' })),
  route('/undocumented-status', () => reply(201, { id: 'a', count: 1 })),
  route('/documented-error', () => {
    throw new DomainError('run_not_found', 'No such item.');
  }),
  route('/undocumented-error', () => {
    throw new DomainError('invalid_run_state', 'The item is busy.');
  }),
];

let ctx: AppContext | undefined;
let httpServer: Server | undefined;
let home: string | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (httpServer ? httpServer.close(() => resolve()) : resolve()));
  if (ctx) await closeContext(ctx);
  if (home) await rm(home, { recursive: true, force: true });
  httpServer = ctx = home = undefined;
});

async function serve(env: Record<string, string>): Promise<string> {
  home = await makeHome();
  ctx = await createContext({ settings: loadSettings({ SVC_HOME: home, SVC_LOG_LEVEL: 'warn', ...env }), role: 'server' });
  httpServer = createServer(toNodeHandler(createApp(ctx, routes)));
  await new Promise<void>((resolve) => httpServer!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(httpServer.address() as { port: number }).port}`;
}

async function logEntries(): Promise<Array<Record<string, any>>> {
  const text = await readFile(join(home!, 'logs', 'svc.log'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('response validation (SVC_VALIDATE_RESPONSES=1)', () => {
  it('lets documented answers through unchanged', async () => {
    const url = await serve({ SVC_VALIDATE_RESPONSES: '1' });
    const ok = await fetch(`${url}/ok`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ id: 'a', count: 1 });
    await expectErrorResponse(await fetch(`${url}/documented-error`), 404, 'run_not_found');
  });

  it('answers 500 internal_error for a wrong type, an extra member or an undocumented status, and logs the issues', async () => {
    const url = await serve({ SVC_VALIDATE_RESPONSES: '1' });
    const cases: Array<[string, number, string]> = [
      ['/wrong-type', 200, 'count'],
      ['/extra-member', 200, 'secret'],
      ['/undocumented-status', 201, ''],
      ['/undocumented-error', 409, ''],
    ];
    for (const [path, status, issuePath] of cases) {
      const body = await expectErrorResponse(await fetch(`${url}${path}`), 500, 'internal_error');
      expect(body.details, path).toMatchObject({ status, issues: [expect.objectContaining({ path: issuePath })] });
    }
    const mismatches = (await logEntries()).filter((entry) => entry.event === 'response.schema_mismatch');
    expect(mismatches.map((entry) => entry.route)).toEqual(cases.map(([path]) => path));
    expect(mismatches[0]).toMatchObject({ level: 'error', status: 200, issues: [{ path: 'count' }] });
  });
});

describe('without response validation (the default)', () => {
  it('sends answers as the handlers make them', async () => {
    const url = await serve({});
    expect(await (await fetch(`${url}/wrong-type`)).json()).toEqual({ id: 'a', count: 'one' });
    expect(await (await fetch(`${url}/extra-member`)).json()).toEqual({ id: 'a', count: 1, secret: 'x' });
    expect((await fetch(`${url}/undocumented-status`)).status).toBe(201);
  });
});
