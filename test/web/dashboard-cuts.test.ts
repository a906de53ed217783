// The run detail in a browser says what of a node's output and log was cut (docs/decisions.md, "Node output"): the stored output past 64 KiB, the streamed output of a failed node, a log
// past its 32 MiB limit.
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
      // 33 MiB on stderr (past the log limit), 128 KiB on stdout (past the record's 64 KiB).
      name: 'cut',
      nodes: [{ id: 'wide', bash: `head -c ${33 * 1024 * 1024} /dev/zero | tr '\\0' e >&2; head -c ${128 * 1024} /dev/zero | tr '\\0' w` }],
    },
    {
      // Fails after printing 128 KiB: its output is shown as it streamed, up to 64 KiB.
      name: 'cut-failed',
      nodes: [{ id: 'loud', bash: `head -c ${128 * 1024} /dev/zero | tr '\\0' l; exit 3` }],
    },
  ]);
  server = await startTestServer({ socket: true, cwd: project });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function showRun(runId: string) {
  const watched = await openPage(browser);
  await watched.page.goto(`${server.url}/#/runs/${runId}`);
  await watched.page.locator('section[data-run-id]').waitFor();
  return watched;
}

describe('the run detail names what was cut', () => {
  it('a stored output cut at 64 KiB, and a log cut at its limit', async () => {
    const started = await server.json('POST', '/api/workflows/cut/run', { message: '', cwd: project });
    const run = await waitForRun(server, started.body.runId, undefined, 60_000);
    expect(run.nodes.wide).toMatchObject({ status: 'completed', outputTruncated: true, logTruncated: true });
    const { page, problems } = await showRun(run.id);
    await expect(page.locator('p[data-cut="output"]').textContent()).resolves.toBe(
      "Output truncated at 64 KiB; the whole output is in the run's artifacts: wide.out.",
    );
    await expect(page.locator('p[data-cut="log"]').textContent()).resolves.toContain('wide.log) reached its 32 MiB limit');
    expect(problems).toEqual([]);
  }, 90_000);

  it('the streamed output of a failed node, cut at 64 KiB', async () => {
    const started = await server.json('POST', '/api/workflows/cut-failed/run', { message: '', cwd: project });
    const run = await waitForRun(server, started.body.runId);
    expect(run.nodes.loud.status).toBe('failed');
    const { page, problems } = await showRun(run.id);
    await expect(page.locator('p[data-cut="output"]').textContent()).resolves.toBe("Output shown up to 64 KiB; the rest is in the run's artifacts: loud.log.");
    await expect(page.locator('p[data-cut="log"]').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });
});
