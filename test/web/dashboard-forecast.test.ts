// The conflict forecast on a run's page (docs/decisions.md, "Conflict forecast"), in Debian's
// Chromium: two runs paused at a gate changed the same line, so each page says, beside Approve,
// which run it conflicts with and in which file; once the other one lands, the page (asking again
// every 10 s) says it conflicts with main.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cleanupAll, startRun, startServer, waitForStatus } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { registerProject } from '../helpers/registered-project.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ socket: true });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

describe('the forecast on a run page', () => {
  it('names the run it conflicts with near Approve, and the target once that run landed', async () => {
    const { workspace } = await registerProject(server, {
      files: { 'math.js': 'export const one = 1;\nexport const two = 2;\n' },
      workflows: [
        {
          name: 'gated-top',
          nodes: [
            { id: 'edit', bash: 'sed -i "1s/.*/export const one = \\"$RUN_ID\\";/" math.js' },
            { id: 'gate', approval: { message: 'land it?' }, depends_on: ['edit'] },
          ],
        },
      ],
    });
    const first = await startRun(server, 'gated-top', { message: 'first', workspaceId: workspace.id });
    await waitForStatus(server, first, 'paused');
    const second = await startRun(server, 'gated-top', { message: 'second', workspaceId: workspace.id });
    await waitForStatus(server, second, 'paused');
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${second}`);
      await p.locator(`section[data-run-id="${second}"][data-status="paused"]`).waitFor();
      const forecast = p.locator('[data-forecast="conflict"]');
      await forecast.waitFor();
      await expect(forecast.textContent()).resolves.toBe(`Forecast: conflicts with ${first} in math.js`);
      await screenshot(p, 'run-forecast');

      // A paused run may be merged (a reviewer landing what they saw): the other now meets it in main.
      expect((await api(server, 'POST', `/api/workflows/runs/${first}/merge`, {})).status).toBe(200);
      await p.locator('[data-forecast="conflict"]', { hasText: 'conflicts with main in math.js' }).waitFor({ timeout: 20_000 });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
