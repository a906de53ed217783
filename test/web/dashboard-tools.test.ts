// Agents' tool calls on the dashboard, in Debian's Chromium (docs/decisions.md, "Tool activity"): a
// run whose agent was refused a tool says so on its page and in the list, and a node's output
// panel lists its calls with their status in words.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeToolLines, writeLines } from '../helpers/recorded-lines.js';
import { cleanupAll, FAKE_CLAUDE, startRun, tempDir, waitForRun, writeWorkflows } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let browser: Browser;
let project: string;

beforeAll(async () => {
  project = await tempDir('svc-web-tools-');
  const lines = await writeLines(await tempDir('svc-web-recorded-'), 'claude.jsonl', claudeToolLines(project));
  await writeWorkflows(project, [
    {
      name: 'tools',
      nodes: [
        { id: 'prep', bash: 'echo ready' },
        { id: 'impl', prompt: `Implement it [fake:lines=${lines}] [fake:reply=DONE]`, depends_on: ['prep'] },
      ],
    },
  ]);
  server = await startTestServer({ socket: true, cwd: project, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await cleanupAll();
});

describe('tool calls on the dashboard', () => {
  it("says the agent was denied tools on the run's page and in the list, and lists a node's calls", async () => {
    const runId = await startRun(server, 'tools', { message: 'add it', cwd: project });
    await waitForRun(server, runId);
    const { page: p, problems } = await openPage(browser);

    await p.goto(`${server.url}/#/runs`);
    const row = p.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    await expect(row.locator('.denied-mark').textContent()).resolves.toContain('tools denied');

    await p.goto(`${server.url}/#/runs/${runId}`);
    const note = p.locator('[data-tools-denied]');
    await note.waitFor();
    await expect(note.textContent()).resolves.toBe('completed — the agent was denied 1 tool call: Write src/math.js');

    await p.locator('tr[data-node-id="impl"] button').click();
    const calls = p.locator('ul[data-tool-calls="impl"] li');
    await calls.first().waitFor();
    await expect(calls.evaluateAll((items) => items.map((item) => [item.getAttribute('data-status'), item.textContent]))).resolves.toEqual([
      ['denied', 'denied Write src/math.js'],
      ['ok', 'ran Bash: npm test'],
    ]);
    await screenshot(p, 'run-tool-calls');
    // A bash node has no tool calls to list.
    await p.locator('tr[data-node-id="prep"] button').click();
    await p.locator('pre[data-node-output="prep"]').waitFor();
    await expect(p.locator('ul[data-tool-calls]').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await p.context().close();
  });
});
