// The dashboard keeps up with runs in a real browser: output while a node runs, every user
// operation from the page, refusals shown inline, and a server restart with the page left open.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWithWorkflows, waitForRun } from '../helpers/runs.js';
import { makeHome, startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, openPage, screenshot, type WatchedPage } from '../helpers/browser.js';

// Globals of the page, for the functions page.evaluate runs there (the tests compile without the DOM library).
declare const document: any;

let server: TestServer;
let browser: Browser;
let project: string;
const pages: WatchedPage[] = [];

const WORKFLOWS = [
  { name: 'ticking', nodes: [{ id: 'tick', bash: 'for i in $(seq 1 15); do echo "tick $i"; sleep 0.2; done' }] },
  // More lines than the output box shows at once, still coming for a while.
  { name: 'long', nodes: [{ id: 'many', bash: 'for i in $(seq 1 120); do echo "line $i"; sleep 0.02; done; sleep 1.5' }] },
  // Forty quick nodes in a row: events come faster than the page's reloads settle, for seconds.
  { name: 'chain', nodes: Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, bash: 'sleep 0.05', ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}) })) },
  { name: 'quick', nodes: [{ id: 'hello', bash: 'echo hello' }] },
  { name: 'colourful', nodes: [{ id: 'paint', bash: "printf '\\033[1;32mPASS\\033[0m all good \\033]0;title\\007done\\n'" }] },
  { name: 'quiet', nodes: [{ id: 'wait', bash: 'sleep 30' }] },
  {
    name: 'gated',
    nodes: [
      { id: 'gate', approval: { message: 'Go?' } },
      { id: 'after', bash: 'echo after', depends_on: ['gate'] },
    ],
  },
  // Fails the first time (no marker yet in the project), passes when resumed.
  { name: 'flaky', nodes: [{ id: 'try', bash: 'if [ -f flaky-marker ]; then echo second try; else touch flaky-marker; echo first try; exit 1; fi' }] },
];

const start = async (target: TestServer, workflow: string, message = '') => {
  const started = await target.json('POST', `/api/workflows/${workflow}/run`, { message, cwd: project });
  expect(started.status).toBe(202);
  return started.body.runId as string;
};

async function page(): Promise<WatchedPage> {
  const watched = await openPage(browser);
  pages.push(watched);
  return watched;
}

const actions = (p: WatchedPage['page']) => p.locator('[data-action]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')));

beforeAll(async () => {
  project = await projectWithWorkflows(WORKFLOWS);
  server = await startTestServer({ socket: true, cwd: project });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the dashboard, live', () => {
  it("streams a running node's output into the page before the node completes", async () => {
    const runId = await start(server, 'ticking');
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    const output = p.locator('pre[data-node-output="tick"]');
    await expect.poll(() => output.textContent(), { timeout: 10_000 }).toContain('tick 3');
    const early = (await output.textContent()) ?? '';
    expect(early).not.toContain('tick 15');
    await expect(p.locator('section[data-run-id]').getAttribute('data-status')).resolves.toBe('running');
    await expect.poll(() => output.textContent(), { timeout: 10_000 }).not.toBe(early);
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(output.textContent()).resolves.toContain('tick 15');
    expect(problems).toEqual([]);
  });

  it("follows the tail of a node's output as it grows, unless the reader scrolled up", async () => {
    const runId = await start(server, 'long');
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    const output = p.locator('pre[data-node-output="many"]');
    await expect.poll(() => output.textContent(), { timeout: 10_000 }).toContain('line 120');
    const place = () => output.evaluate((el) => ({ top: el.scrollTop, gap: el.scrollHeight - el.scrollTop - el.clientHeight }));
    const atEnd = await place();
    expect(atEnd.top).toBeGreaterThan(0);
    expect(atEnd.gap).toBeLessThan(24);
    await expect(p.locator('section[data-run-id]').getAttribute('data-status')).resolves.toBe('running');
    // Scrolled up to read, the reader is left there while the run finishes.
    await output.evaluate((el) => el.scrollTo({ top: 0 }));
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(place()).resolves.toMatchObject({ top: 0 });
    expect(problems).toEqual([]);
  });

  it("shows a tool's coloured output as plain words, without terminal control sequences", async () => {
    const runId = await start(server, 'colourful');
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(p.locator('pre[data-node-output="paint"]').textContent()).resolves.toBe('PASS all good done');
    expect(problems).toEqual([]);
  });

  it('keeps the list and the run page up to date through a run that never pauses for breath', async () => {
    const list = await page();
    const detail = await page();
    await list.page.goto(`${server.url}/#/runs`);
    await list.page.getByRole('heading', { name: 'Runs' }).waitFor();
    const runId = await start(server, 'chain');
    await detail.page.goto(`${server.url}/#/runs/${runId}`);
    // Both show the run while it runs, and its progress, not only once it is over.
    await list.page.locator(`tr[data-run-id="${runId}"][data-status="running"]`).waitFor({ timeout: 10_000 });
    await detail.page.locator('g.dag-node[data-node-id="n5"][data-status="completed"]').waitFor({ timeout: 10_000 });
    await expect(detail.page.locator('g.dag-node[data-node-id="n39"]').getAttribute('data-status')).resolves.not.toBe('completed');
    await list.page.locator(`tr[data-run-id="${runId}"][data-status="completed"]`).waitFor({ timeout: 20_000 });
    expect([...list.problems, ...detail.problems]).toEqual([]);
  });

  it('cancels a running run, resumes a failed one and deletes one, from the page', async () => {
    const { page: p, problems } = await page();
    const running = await start(server, 'quiet');
    await p.goto(`${server.url}/#/runs/${running}`);
    await p.locator('section[data-status="running"]').waitFor();
    await expect(actions(p)).resolves.toEqual(['cancel', 'abandon']);
    await p.getByRole('button', { name: 'Cancel' }).click();
    await p.locator('section[data-status="cancelled"]').waitFor();

    const flaky = await start(server, 'flaky');
    await waitForRun(server, flaky);
    await p.goto(`${server.url}/#/runs/${flaky}`);
    await p.locator('section[data-status="failed"]').waitFor();
    // The output of this run's node, not the cancelled run's shown just before.
    await expect(p.locator('pre[data-node-output="try"]').textContent()).resolves.toBe('first try\n');
    await p.getByRole('button', { name: 'Resume' }).click();
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(p.locator('pre[data-node-output="try"]').textContent()).resolves.toContain('second try');

    // Delete asks first; then the page goes back to the list, where the run is gone.
    p.once('dialog', (dialog) => void dialog.accept());
    await p.getByRole('button', { name: 'Delete' }).click();
    await p.waitForURL(/#\/runs$/);
    await p.getByRole('heading', { name: 'Runs' }).waitFor();
    await p.locator(`tr[data-run-id="${running}"]`).waitFor();
    await expect(p.locator(`tr[data-run-id="${flaky}"]`).count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows a refused approval inline, next to the run as it now is', async () => {
    const runId = await start(server, 'gated');
    await waitForRun(server, runId, (run) => run.status === 'paused');
    const { page: p } = await page();
    // This page hears nothing of what others do: its approval box stays up after the run moved on.
    await p.route('**/api/stream/**', (route) => route.abort());
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="paused"]').waitFor();
    expect((await server.json('POST', `/api/workflows/runs/${runId}/approve`, { comment: 'me first' })).status).toBe(200);
    await waitForRun(server, runId);
    await p.getByLabel('Comment').fill('me too');
    await p.getByRole('button', { name: 'Approve' }).click();
    await expect(p.locator('.actions [role="alert"]').textContent()).resolves.toMatch(/paused|approve/i);
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(p.locator('.approval').count()).resolves.toBe(0);
    await screenshot(p, 'run-refused-inline');
  });

  it('rejects from the page with a reason', async () => {
    const runId = await start(server, 'gated');
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="paused"]').waitFor();
    await p.getByLabel('Reason').fill('not this week');
    await p.getByRole('button', { name: 'Reject' }).click();
    await p.locator('section[data-status="cancelled"]').waitFor();
    await p.locator('section[data-run-id] > p.note', { hasText: 'Rejected: not this week' }).waitFor();
    await expect(p.locator('g.dag-node[data-node-id="after"]').getAttribute('data-status')).resolves.not.toBe('completed');
    expect((await waitForRun(server, runId)).rejectReason).toBe('not this week');
    expect(problems).toEqual([]);
  });

  it('says so when the run shown is deleted elsewhere', async () => {
    const runId = await start(server, 'quick');
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    let loads = 0;
    p.on('response', (response) => void (response.url().endsWith(`/api/workflows/runs/${runId}`) && loads++));
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="completed"]').waitFor();
    // Loaded on arrival and once more when its stream opened; deleted after that.
    await expect.poll(() => loads).toBe(2);
    expect((await server.json('DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
    await p.getByText('This run was deleted').waitFor();
    await expect(actions(p)).resolves.toEqual([]);
    expect(problems).toEqual([]);
  });

  it('survives a bad escape in the address', async () => {
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/%E0%A4%A`);
    await p.getByRole('link', { name: '← Runs' }).waitFor();
    await p.locator('.note.error').waitFor();
    expect(problems.filter((problem) => problem.startsWith('pageerror'))).toEqual([]);
  });

  it('opens more tabs than the browser keeps connections to one server, hidden tabs giving theirs up', async () => {
    // What the browser does to a tab left behind another one (headless tabs are all "visible").
    const setHidden = (p: WatchedPage['page'], hidden: boolean) =>
      p.evaluate((value) => {
        Object.defineProperty(document, 'hidden', { value, configurable: true });
        Object.defineProperty(document, 'visibilityState', { value: value ? 'hidden' : 'visible', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    const context = await browser.newContext();
    try {
      const tabs: Array<WatchedPage['page']> = [];
      for (let i = 0; i < 8; i++) {
        const tab = await context.newPage();
        tab.setDefaultTimeout(10_000);
        await tab.goto(`${server.url}/#/runs`);
        await tab.getByRole('heading', { name: 'Runs' }).waitFor();
        await tab.locator('.live:not(.off)').waitFor();
        if (i < 7) await setHidden(tab, true);
        tabs.push(tab);
      }
      // A run started while the first tab was hidden is in its list once it is shown again.
      const runId = await start(server, 'quick');
      await waitForRun(server, runId);
      await setHidden(tabs[0]!, false);
      await tabs[0]!.locator(`tr[data-run-id="${runId}"][data-status="completed"]`).waitFor();
      await tabs[7]!.locator(`tr[data-run-id="${runId}"][data-status="completed"]`).waitFor();
      // The run is in the list of the tab shown again and of the tab never hidden, once each.
      expect(await tabs[0]!.locator(`tr[data-run-id="${runId}"]`).count()).toBe(1);
      expect(await tabs[7]!.locator(`tr[data-run-id="${runId}"]`).count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('catches up after a server restart with the page left open', async () => {
    // A server of its own, restarted on the same port and home, as `svc serve` would be.
    const home = await makeHome();
    const first = await startTestServer({ socket: true, cwd: project, home });
    const port = String(first.port);
    let second: TestServer | undefined;
    try {
      const runId = await start(first, 'quiet');
      await waitForRun(first, runId, (run) => run.status === 'running');
      const list = await page();
      const detail = await page();
      await list.page.goto(`${first.url}/#/runs`);
      await detail.page.goto(`${first.url}/#/runs/${runId}`);
      await list.page.locator(`tr[data-run-id="${runId}"][data-status="running"]`).waitFor();
      await detail.page.locator('section[data-status="running"]').waitFor();

      // The node prints nothing, so neither page has received an event before the server goes.
      await first.stop({ keepHome: true });
      second = await startTestServer({ socket: true, cwd: project, home, env: { PORT: port } });
      // The run was interrupted by the stop; both pages learn it once their streams are back.
      await list.page.locator(`tr[data-run-id="${runId}"][data-status="failed"]`).waitFor({ timeout: 20_000 });
      await detail.page.locator('section[data-status="failed"]').waitFor({ timeout: 20_000 });
      await detail.page.locator('.live:not(.off)').waitFor();
      await expect(actions(detail.page)).resolves.toContain('resume');
      await screenshot(detail.page, 'run-after-restart');
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
