// The run page in a browser shows what the API carries for a failed node (issue 32): its last
// lines (`logTail`) where the failure is, and a failure `continue_on_error` tolerated as failed
// but tolerated, in a run that completed. A real server on an ephemeral port, real Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWithWorkflows, waitForRun } from '../helpers/runs.js';
import { launchBrowser, openPage } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let project: string;

beforeAll(async () => {
  project = await projectWithWorkflows([
    {
      name: 'breaks',
      nodes: [
        { id: 'prep', bash: 'echo prepared' },
        { id: 'boom', bash: "echo 'step one'; echo 'the reason it broke' >&2; exit 3", depends_on: ['prep'] },
      ],
    },
    {
      name: 'tolerant',
      nodes: [
        { id: 'lint', bash: "echo 'lint says no' >&2; exit 1", continue_on_error: true },
        { id: 'ship', bash: 'echo shipped', depends_on: ['lint'] },
      ],
    },
  ]);
  server = await startTestServer({ socket: true, cwd: project });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function finishedRun(workflow: string) {
  const started = await server.json('POST', `/api/workflows/${workflow}/run`, { message: '', cwd: project });
  return waitForRun(server, started.body.runId);
}

async function showRun(runId: string) {
  const watched = await openPage(browser);
  await watched.page.goto(`${server.url}/#/runs/${runId}`);
  await watched.page.locator('section[data-run-id]').waitFor();
  return watched;
}

describe("the run page shows a failed node's last lines", () => {
  it('a failed run opens on the node that failed it, with the last lines of its output', async () => {
    const run = await finishedRun('breaks');
    expect(run).toMatchObject({ status: 'failed', nodes: { boom: { status: 'failed', logTail: expect.stringContaining('the reason it broke') } } });
    const { page, problems } = await showRun(run.id);
    await expect(page.locator('section[data-run-id]').getAttribute('data-status')).resolves.toBe('failed');
    // Shown without a click: the failed node, not the first of the graph.
    const tail = page.locator('[data-log-tail="boom"]');
    await tail.waitFor();
    await expect(tail.locator('pre').textContent()).resolves.toBe('step one\nthe reason it broke');
    await expect(tail.textContent()).resolves.toContain(`svc runs logs ${run.id} boom`);
    await expect(page.locator('tr[data-node-id="boom"] .badge').textContent()).resolves.toBe('failed');
    // A node that did not fail has no last lines to show.
    await page.locator('tr[data-node-id="prep"] button').click();
    await page.locator('[data-node-output="prep"]').waitFor();
    await expect(page.locator('[data-log-tail]').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('a tolerated failure is shown failed but tolerated, in a completed run', async () => {
    const run = await finishedRun('tolerant');
    expect(run).toMatchObject({ status: 'completed', nodes: { lint: { status: 'failed', tolerated: true }, ship: { status: 'completed' } } });
    const { page, problems } = await showRun(run.id);
    await expect(page.locator('section[data-run-id]').getAttribute('data-status')).resolves.toBe('completed');
    await expect(page.locator('h1 .badge').textContent()).resolves.toBe('completed');
    await expect(page.locator('[data-tolerated-note]').textContent()).resolves.toBe('completed — 1 failure tolerated (lint)');
    await expect(page.locator('tr[data-node-id="lint"] td:nth-child(2)').textContent()).resolves.toBe('failedtolerated');
    await expect(page.locator('tr[data-node-id="ship"] [data-tolerated]').count()).resolves.toBe(0);
    const drawn = page.locator('g.dag-node[data-node-id="lint"]');
    await expect(drawn.getAttribute('class')).resolves.toContain('tolerated');
    await expect(drawn.getAttribute('aria-label')).resolves.toBe('lint, bash, failed, tolerated');
    await drawn.click();
    const note = page.locator('.output-panel p[data-tolerated]');
    await note.waitFor();
    await expect(note.textContent()).resolves.toContain('Failed, tolerated (continue_on_error)');
    // Not an alert: the run did not fail.
    await expect(page.locator('.output-panel [role="alert"]').count()).resolves.toBe(0);
    await expect(page.locator('[data-log-tail="lint"] pre').textContent()).resolves.toBe('lint says no');
    expect(problems).toEqual([]);
  });
});
