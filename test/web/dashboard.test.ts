// The dashboard end to end, in Debian's Chromium: a real server, real runs, the page's own clicks.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, projectWithWorkflows, waitForRun } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, openPage, screenshot, type WatchedPage } from '../helpers/browser.js';

let server: TestServer;
let browser: Browser;
let project: string;
const pages: WatchedPage[] = [];

const WORKFLOWS = [
  {
    name: 'gated',
    description: 'build, ask, ship',
    nodes: [
      { id: 'prep', bash: 'for i in 1 2 3; do echo "prep line $i"; sleep 0.2; done' },
      { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['prep'] },
      { id: 'ship', bash: 'echo "shipped: $USER_MESSAGE"', depends_on: ['gate'] },
    ],
  },
  { name: 'reading', permissions: 'read', nodes: [{ id: 'look', prompt: 'look around [fake:reply=looked]' }] },
  { name: 'capped', max_cost_usd: 1, nodes: [{ id: 'spend', prompt: 'spend [fake:cost=0.25]' }] },
  { name: 'limited', auto_resume: true, nodes: [{ id: 'hit', prompt: 'hit [fake:usage-limit=Claude AI usage limit reached|1900000000]' }] },
  {
    name: 'inject',
    nodes: [{ id: 'evil', bash: `echo '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b id=bold>b</b>'` }],
  },
];

async function page(options?: Parameters<typeof openPage>[1]): Promise<WatchedPage> {
  const watched = await openPage(browser, options);
  pages.push(watched);
  return watched;
}

beforeAll(async () => {
  project = await projectWithWorkflows(WORKFLOWS);
  server = await startTestServer({ socket: true, cwd: project, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the dashboard in a browser', () => {
  it('shows a new run live, approves it from the page and shows it complete', async () => {
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/`);
    await p.getByRole('heading', { name: 'Runs' }).waitFor();
    await p.getByText('No runs match').waitFor();

    // Started elsewhere (the API): the list learns of it from the stream, with no reload.
    let listCalls = 0;
    p.on('request', (request) => {
      if (request.url().includes('/api/dashboard/runs')) listCalls++;
    });
    const started = await server.json('POST', '/api/workflows/gated/run', { message: 'release 1.2', cwd: project });
    const runId: string = started.body.runId;
    const row = p.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor();
    await p.locator(`tr[data-run-id="${runId}"][data-status="paused"]`).waitFor();
    await expect(p.locator('button[data-status="paused"] .count').textContent()).resolves.toBe('1');
    await screenshot(p, 'runs-list-paused');

    // No polling: a quiet second brings no request for the list.
    const before = listCalls;
    await p.waitForTimeout(1200);
    expect(listCalls).toBe(before);

    // Into the run: the DAG shows each node's state, the gate waits.
    await row.getByRole('link').click();
    await p.locator(`section[data-run-id="${runId}"]`).waitFor();
    await p.locator('g.dag-node[data-node-id="prep"][data-status="completed"]').waitFor();
    await p.locator('g.dag-node[data-node-id="gate"][data-status="waiting_approval"]').waitFor();
    await expect(p.locator('.approval').textContent()).resolves.toContain('Ship it?');
    // Only what the lifecycle allows a paused run: abandon (approve and reject are in the approval box).
    await expect(p.locator('[data-action]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')))).resolves.toEqual(['abandon']);
    // The output of a node, chosen from the keyboard on the DAG.
    await p.locator('g.dag-node[data-node-id="prep"]').focus();
    await p.keyboard.press('Enter');
    await expect(p.locator('pre[data-node-output="prep"]').textContent()).resolves.toContain('prep line 3');
    await screenshot(p, 'run-paused');

    await p.getByLabel('Comment').fill('looks good');
    await p.getByRole('button', { name: 'Approve' }).click();
    await p.locator(`section[data-run-id="${runId}"][data-status="completed"]`).waitFor();
    await p.locator('g.dag-node[data-node-id="ship"][data-status="completed"]').waitFor();
    await p.locator('g.dag-node[data-node-id="ship"]').click();
    await expect(p.locator('pre[data-node-output="ship"]').textContent()).resolves.toContain('shipped: release 1.2');
    // Terminal: delete is the one thing left to do.
    await expect(p.locator('[data-action]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')))).resolves.toEqual(['delete']);
    await expect(p.locator('.timeline-row').count()).resolves.toBe(3);
    await screenshot(p, 'run-completed');

    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.gate.output).toBe('looks good');
    expect(problems).toEqual([]);
  });

  it("shows what a node's agent was allowed to do", async () => {
    const started = await server.json('POST', '/api/workflows/reading/run', { message: '', cwd: project });
    const runId: string = started.body.runId;
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="completed"]').waitFor();
    await p.locator('g.dag-node[data-node-id="look"]').click();
    await expect(p.locator('[data-permissions]').textContent()).resolves.toMatch(/^Agent permissions: read — reads and searches/);
    // And that it ran in its OS sandbox (docs/contract.md, "Sandbox").
    await expect(p.locator('[data-sandbox]').textContent()).resolves.toMatch(/^Sandbox: on — writes only its run's worktree/);
    // The names its environment held beyond the base set (docs/contract.md, "Least-privilege environment"), never values.
    await expect(p.locator('[data-env-given]').textContent()).resolves.toMatch(/^Environment beyond the base set: .*\bRUN_ID\b/);
    expect(problems).toEqual([]);
    // The runs list of the later tests is the one they expect (no agent run with a cost in it).
    expect((await server.json('DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
  });

  it("shows a capped run's spend against its cap in the run header", async () => {
    const started = await server.json('POST', '/api/workflows/capped/run', { message: '', cwd: project });
    const runId: string = started.body.runId;
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(p.locator('[data-budget]').textContent()).resolves.toBe('$0.25 of $1.00');
    expect(problems).toEqual([]);
    // The runs list of the later tests is the one they expect (no agent run with a cost in it).
    expect((await server.json('DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
  });

  it('shows when the usage limit a run stopped on resets and its auto-resume appointment, which Cancel calls off', async () => {
    const started = await server.json('POST', '/api/workflows/limited/run', { message: '', cwd: project });
    const runId: string = started.body.runId;
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="failed"]').waitFor();
    const shown = await p.locator('[data-usage-limit]').textContent();
    // 1900000000 is in 2030: the browser's full local date and time, whatever its locale.
    expect(shown).toMatch(/^resets .*2030/);
    await expect(p.locator('[data-auto-resume]').textContent()).resolves.toMatch(/^at .*2030/);
    await p.locator('[data-action="cancel-auto-resume"]').click();
    await p.locator('[data-auto-resume]').waitFor({ state: 'detached' });
    expect((await server.json('GET', `/api/workflows/runs/${runId}`)).body).toMatchObject({ status: 'failed', autoResumeAt: null });
    expect(problems).toEqual([]);
    expect((await server.json('DELETE', `/api/workflows/runs/${runId}`)).status).toBe(200);
  });

  it('shows a refused action inline', async () => {
    const started = await server.json('POST', '/api/workflows/gated/run', { message: 'two', cwd: project });
    const runId: string = started.body.runId;
    const { page: p } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator(`section[data-status="paused"]`).waitFor();
    // Someone else rejects it first; this page still shows the approval box and tries.
    await server.json('POST', `/api/workflows/runs/${runId}/reject`, { reason: 'not now' });
    await p.locator(`section[data-status="cancelled"]`).waitFor();
    await expect(p.locator('.approval').count()).resolves.toBe(0);
    await expect(p.getByText('Rejected: not now').count()).resolves.toBe(1);
  });

  it('sends a conversation message and streams the reply', async () => {
    const created = await server.json('POST', '/api/conversations', { title: 'chat from the page' });
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/conversations/${created.body.id}`);
    await p.getByRole('heading', { name: 'chat from the page' }).waitFor();
    await p.getByLabel('Message').fill('[fake:slow=400][fake:reply=Hello from the agent, in three parts]');
    await p.keyboard.press('Enter');
    await p.locator('li[data-role="user"]').waitFor();
    // The reply arrives in pieces before it is stored.
    await p.locator('li[data-streaming-reply]').waitFor();
    await screenshot(p, 'conversation-streaming');
    await p.locator('li[data-role="assistant"]:not(.streaming)').waitFor({ timeout: 20_000 });
    await expect(p.locator('li[data-role="assistant"] .message-body').last().textContent()).resolves.toBe('Hello from the agent, in three parts');
    await expect(p.locator('li[data-streaming-reply]').count()).resolves.toBe(0);
    await screenshot(p, 'conversation-answered');
    expect(problems).toEqual([]);
  });

  it('says an answer is coming before the agent has said a word', async () => {
    const created = await server.json('POST', '/api/conversations', { title: 'a slow starter' });
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/conversations/${created.body.id}`);
    await p.getByRole('heading', { name: 'a slow starter' }).waitFor();
    await p.getByLabel('Message').fill('[fake:delay-first=3000][fake:reply=there you are]');
    await p.keyboard.press('Enter');
    await p.locator('li[data-streaming-reply]', { hasText: 'replying…' }).waitFor({ timeout: 1500 });
    await p.locator('li[data-role="assistant"]:not(.streaming)').waitFor({ timeout: 20_000 });
    await expect(p.locator('li[data-role="assistant"] .message-body').textContent()).resolves.toBe('there you are');
    await expect(p.locator('li[data-streaming-reply]').count()).resolves.toBe(0);
    // An answer that beats the send's own reply to the page leaves nothing waiting behind it.
    await p.getByLabel('Message').fill('/help');
    await p.keyboard.press('Enter');
    await p.locator('li[data-role="system"]').waitFor();
    await p.waitForTimeout(300);
    await expect(p.locator('li[data-streaming-reply]').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('shows markup in run messages, node output and chat as text, running none of it', async () => {
    const evil = '<img src=x onerror="window.__pwned=3"><script>window.__pwned=4</script>';
    const started = await server.json('POST', '/api/workflows/inject/run', { message: evil, cwd: project });
    const runId: string = started.body.runId;
    await waitForRun(server, runId);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/runs/${runId}`);
    await p.locator('section[data-status="completed"]').waitFor();
    await expect(p.locator('dd.message').textContent()).resolves.toBe(evil);
    await expect(p.locator('pre[data-node-output="evil"]').textContent()).resolves.toContain('<script>window.__pwned=2</script>');
    await p.goto(`${server.url}/#/runs`);
    await p.locator(`tr[data-run-id="${runId}"]`).waitFor();
    const created = await server.json('POST', '/api/conversations', { title: evil });
    await p.goto(`${server.url}/#/conversations/${created.body.id}`);
    await p.locator('.conversation h2').waitFor();
    await expect(p.locator('.conversation h2').textContent()).resolves.toBe(evil);
    await p.waitForTimeout(300);
    expect(await p.evaluate('window.__pwned')).toBeUndefined();
    expect(await p.locator('main img, main script, #bold').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('refuses a cross-site form that posts an approval', async () => {
    const started = await server.json('POST', '/api/workflows/gated/run', { message: 'csrf', cwd: project });
    const runId: string = started.body.runId;
    await waitForRun(server, runId, (run) => run.status === 'paused');
    // Another origin: the same page served from a data: URL (Origin: null) and from another port.
    const { createServer } = await import('node:http');
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id=f method=POST enctype=text/plain action="${server.url}/api/workflows/runs/${runId}/approve"><input name='{"comment":"pwned","x":"' value='"}'></form>
        <script>fetch("${server.url}/api/workflows/runs/${runId}/cancel", {method: "POST", mode: "no-cors"}).finally(() => document.getElementById("f").submit())</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      const { page: p } = await page();
      const port = (evil.address() as { port: number }).port;
      const answers: number[] = [];
      p.on('response', (response) => {
        if (response.url().includes('/api/workflows/runs/')) answers.push(response.status());
      });
      await p.goto(`http://127.0.0.1:${port}/`);
      await p.waitForURL(/approve/);
      expect(answers).toContain(403);
      const run = await server.json('GET', `/api/workflows/runs/${runId}`);
      expect(run.body.status).toBe('paused');
    } finally {
      evil.close();
    }
  });

  it('draws workflows and starts a run from the form', async () => {
    // The server's own directory is the checkout; the project's workflows are found as a workspace's.
    await writeFile(join(project, '.env'), 'ANTHROPIC_API_KEY=sk-test-not-a-real-key\n');
    const workspace = await server.json('POST', '/api/workspaces', { path: project });
    expect(workspace.status).toBe(201);
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/workflows/gated`);
    await p.locator('.workflow-detail g.dag-node').first().waitFor();
    await expect(p.locator('.workflow-detail g.dag-node').count()).resolves.toBe(3);
    // The workspace the workflow belongs to is chosen once the workspaces have loaded, which may be after the drawing.
    await expect.poll(() => p.locator('select[name="workspace"]').inputValue(), { timeout: 10_000 }).toBe(workspace.body.id);
    await expect(p.getByText('Valid.').count()).resolves.toBe(1);
    await p.getByLabel('Message').fill('from the form');
    await p.getByRole('button', { name: 'Start run' }).click();
    await p.waitForURL(/#\/runs\/run/);
    await p.locator('section[data-status="paused"]').waitFor();
    await expect(p.locator('dd.message').textContent()).resolves.toBe('from the form');
    // The form defaulted to the workflow's own workspace (this one is no git repository, so the run
    // has no worktree: test/workspaces/workspace-workflows.test.ts shows one with).
    const runId = decodeURIComponent(p.url().split('#/runs/')[1]!);
    expect((await server.json('GET', `/api/workflows/runs/${runId}`)).body).toMatchObject({ workspaceId: workspace.body.id });
    await screenshot(p, 'workflow-started');

    // The workspace, its .env scan and the consent it lacks, read-only.
    await p.goto(`${server.url}/#/workspaces/${workspace.body.id}`);
    await p.locator(`[data-workspace-id="${workspace.body.id}"]`).waitFor();
    await expect(p.locator('dd[data-consent="false"]').textContent()).resolves.toContain('not given');
    await expect(p.getByText('ANTHROPIC_API_KEY').count()).resolves.toBeGreaterThan(0);
    await expect(p.getByText('sk-test-not-a-real-key').count()).resolves.toBe(0);
    await screenshot(p, 'workspace');
    expect(problems).toEqual([]);
  });

  it('shows a benchmark with bars and compares two runs', async () => {
    const ids: string[] = [];
    for (const message of ['a', 'b']) {
      const started = await server.json('POST', '/api/workflows/inject/run', { message, cwd: project });
      ids.push(started.body.runId);
      await waitForRun(server, started.body.runId);
    }
    const { page: p, problems } = await page();
    await p.goto(`${server.url}/#/benchmarks/inject`);
    await p.locator('[data-benchmark="inject"] tr[data-node-id="evil"]').waitFor();
    await expect(p.locator('[data-benchmark="inject"] .bar').count()).resolves.toBe(2);
    await p.getByLabel('Run A').fill(ids[0]!);
    await p.getByLabel('Run B').fill(ids[1]!);
    await p.getByRole('button', { name: 'Compare' }).click();
    await p.locator('table[data-compare] tr[data-node-id="evil"]').waitFor();
    await screenshot(p, 'benchmarks');
    expect(problems).toEqual([]);
  });

  it('reads well in a narrow window and in dark mode', async () => {
    const { page: p, problems } = await page({ width: 420, height: 800, colorScheme: 'dark' });
    await p.goto(`${server.url}/#/runs`);
    await p.locator('tr[data-run-id]').first().waitFor();
    const background = await p.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(15, 18, 22)');
    // Nothing pushes the page sideways; wide tables scroll inside their own box.
    expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    // What a glance needs stays on screen: the state, duration and cost columns.
    const cost = await p.getByRole('columnheader', { name: 'Cost' }).boundingBox();
    expect(cost!.x + cost!.width).toBeLessThanOrEqual(420);
    await screenshot(p, 'runs-narrow-dark');
    await p.locator('tr[data-run-id] a').first().click();
    await p.locator('section[data-run-id]').waitFor();
    expect(await p.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(p, 'run-narrow-dark');
    expect(problems).toEqual([]);
  });
});
