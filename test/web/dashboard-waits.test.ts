// A waiting run on the dashboard, in Debian's Chromium (docs/decisions.md, "Waits and signals"): its
// page says it waits and for what — each waiting node's time or event, with the command that
// signals it — the graph colours the waiting node, and the list filters by the state.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, eventTypes, startRun, tempDir, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let project: string;

beforeAll(async () => {
  project = await tempDir('svc-web-waits-');
  await writeWorkflows(project, [
    {
      name: 'ci',
      nodes: [
        { id: 'push', bash: 'echo pushed' },
        { id: 'build', wait: { event: 'build_finished', timeout: '2h' }, depends_on: ['push'] },
        { id: 'cool', wait: { for: '1h' }, depends_on: ['push'] },
        { id: 'report', bash: 'echo done', depends_on: ['build', 'cool'] },
      ],
    },
  ]);
  server = await startTestServer({ socket: true, cwd: project });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await cleanupAll();
});

describe('a waiting run on the dashboard', () => {
  it('says what each node waits for, colours the graph, and is listed under waiting', async () => {
    const runId = await startRun(server, 'ci', { message: 'push', cwd: project });
    const run = await waitForRun(server, runId, (r) => r.status === 'waiting' && eventTypes(r).at(-1) === 'run_waiting');
    const { page: p, problems } = await openPage(browser);

    await p.goto(`${server.url}/#/runs/${runId}`);
    const waits = p.getByRole('region', { name: 'Waiting', exact: true });
    await waits.waitFor();
    await expect(waits.locator('p').textContent()).resolves.toMatch(/^Waiting — continues by itself at .+; it holds no run slot\.$/);
    await expect(waits.locator('[data-wait="build"]').textContent()).resolves.toMatch(
      new RegExp(`^build waits for the event build_finished, until .+ \\(then it fails wait_timeout\\): svc signal ${runId} build_finished$`),
    );
    await expect(waits.locator('[data-wait="cool"]').textContent()).resolves.toMatch(/^cool waits until .+$/);
    await expect(p.locator('h1 .status-waiting').count()).resolves.toBe(1);
    await expect(p.locator('.dag-node.status-waiting').count()).resolves.toBe(2);
    // Cancel and abandon apply to a waiting run; approve and reject do not.
    await expect(p.locator('.actions .buttons button').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')))).resolves.toEqual([
      'cancel',
      'abandon',
    ]);
    await screenshot(p, 'run-waiting');

    await p.goto(`${server.url}/#/runs?status=waiting`);
    await p.locator(`tr[data-run-id="${runId}"]`).waitFor();
    expect(run.wakeAt).toBe(run.nodes.cool.waitUntil);
    expect(problems).toEqual([]);
    await p.context().close();
  });
});
