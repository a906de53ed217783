// The dashboard shows what a node costs the machine (issue 33): in a real browser, a running
// node's memory as its `node_memory` events give it, live, and a finished node's peak.
import type { Browser } from 'playwright-core';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSize } from '../../src/shared/size.js';
import { projectWithWorkflows, tempDir, waitForRun } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, openPage, type WatchedPage } from '../helpers/browser.js';

let server: TestServer;
let browser: Browser;
let project: string;
let release: string;
const pages: WatchedPage[] = [];

// Holds 200 MiB (every byte written, so resident) until the test creates `file`: no clock decides when it ends.
const holdUntil = (file: string) =>
  `python3 -c "import os, time${'\n'}b = b'x' * (200 * 1024 * 1024)${'\n'}while not os.path.exists('${file}'): time.sleep(0.05)"`;

beforeAll(async () => {
  release = join(await tempDir('svc-dashboard-memory-'), 'release');
  project = await projectWithWorkflows([{ name: 'hungry', nodes: [{ id: 'hold', bash: holdUntil(release) }] }]);
  server = await startTestServer({ socket: true, cwd: project });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await writeFile(release, '').catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('memory on the run page', () => {
  it("shows a running node's memory live, then its peak once it finished", async () => {
    const started = await server.json('POST', '/api/workflows/hungry/run', { message: '', cwd: project });
    expect(started.status).toBe(202);
    const runId = started.body.runId as string;
    const watched = await openPage(browser);
    pages.push(watched);
    const { page: p, problems } = watched;
    await p.goto(`${server.url}/#/runs/${runId}`);
    const cell = p.locator('tr[data-node-id="hold"] td[data-memory]');
    // Live: the figure of a running node, past 150 MB once python filled its buffer.
    await expect
      .poll(async () => ((await cell.getAttribute('data-memory')) === 'live' ? Number(/^(\d+) MB now$/.exec((await cell.textContent()) ?? '')?.[1]) : 0), {
        timeout: 30_000,
      })
      .toBeGreaterThan(150);
    await expect(p.locator('section[data-run-id]').getAttribute('data-status')).resolves.toBe('running');
    await writeFile(release, '');
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');
    await p.locator('section[data-status="completed"]').waitFor();
    // Finished: its recorded peak, as `svc runs show` gives it.
    await expect.poll(() => cell.getAttribute('data-memory'), { timeout: 10_000 }).toBe('peak');
    await expect(cell.textContent()).resolves.toBe(formatSize(run.nodes.hold.peakRssBytes));
    expect(problems).toEqual([]);
  }, 60_000);
});
