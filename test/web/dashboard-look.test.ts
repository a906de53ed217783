// How the dashboard reads and handles, in a real browser: every view in both colour schemes and
// in a narrow window without a CSP violation, state colours that can be read, and the keyboard.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectWithWorkflows, waitForRun } from '../helpers/runs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';

// Globals of the page, for the functions page.evaluate runs there (the tests compile without the DOM library).
declare const document: any;
declare function getComputedStyle(element: unknown): any;

let server: TestServer;
let browser: Browser;
let pausedRun: string;
let failedRun: string;

const STATES = [
  'pending',
  'running',
  'paused',
  'completed',
  'failed',
  'cancelled',
  'abandoned',
  'skipped',
  'waiting_approval',
  // A followed pull request's, its checks' and its reactions' (components/pull-request.tsx).
  'open',
  'merged',
  'closed',
  'success',
  'failure',
  'neutral',
  'starting',
  'pushing',
  'pushed',
];

beforeAll(async () => {
  const project = await projectWithWorkflows([
    {
      name: 'gated',
      nodes: [
        { id: 'prep', bash: 'echo ready' },
        { id: 'gate', approval: { message: 'Go?' }, depends_on: ['prep'] },
        { id: 'ship', bash: 'echo shipped', depends_on: ['gate'] },
      ],
    },
    { name: 'failing', nodes: [{ id: 'boom', bash: 'echo boom; exit 2' }] },
  ]);
  // Not a workflow: no description, and a dependency on a node it does not have.
  await writeFile(join(project, '.svc', 'workflows', 'broken.yaml'), 'name: broken\nnodes:\n  - id: a\n    bash: echo a\n    depends_on: [missing]\n');
  server = await startTestServer({ socket: true, cwd: project });
  // The project's workflows (the broken file among them) are found as a workspace's.
  expect((await server.json('POST', '/api/workspaces', { path: project })).status).toBe(201);
  browser = await launchBrowser();
  pausedRun = (await server.json('POST', '/api/workflows/gated/run', { message: 'look', cwd: project })).body.runId;
  failedRun = (await server.json('POST', '/api/workflows/failing/run', { message: 'look', cwd: project })).body.runId;
  await waitForRun(server, pausedRun, (run) => run.status === 'paused');
  await waitForRun(server, failedRun);
  const conversation = await server.json('POST', '/api/conversations', { title: 'look' });
  expect(conversation.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** WCAG contrast of two computed `rgb(…)` colours, worked out in the page. */
const contrastIn = (page: Page, pairs: Array<[string, string]>) =>
  page.evaluate((list) => {
    const luminance = (css: string) => {
      const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    return list.map(([a, b]) => {
      const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
      return (hi! + 0.05) / (lo! + 0.05);
    });
  }, pairs);

describe('the dashboard, looked at', () => {
  it('renders every view in light and dark, wide and narrow, with no CSP violation and nothing pushed sideways', async () => {
    const views: Array<[string, string]> = [
      ['runs', '#/runs'],
      ['run-paused', `#/runs/${pausedRun}`],
      ['run-failed', `#/runs/${failedRun}`],
      ['workflow', '#/workflows/smoke'],
      ['conversations', '#/conversations'],
      ['benchmark', '#/benchmarks/failing'],
      ['workspaces', '#/workspaces'],
    ];
    for (const options of [
      { width: 1280, colorScheme: 'light' as const },
      { width: 400, colorScheme: 'dark' as const },
    ]) {
      const { page, context, problems } = await openPage(browser, options);
      for (const [name, view] of views) {
        await page.goto(`${server.url}/${view}`);
        await page.locator('main h1, main h2').first().waitFor();
        // The run form's workspace choices arrive last; a long one once pushed a narrow page sideways.
        if (name === 'workflow') await page.locator('select[name="workspace"] option').nth(1).waitFor({ state: 'attached' });
        await page.waitForTimeout(150);
        // Measured once the view has settled (its data loaded and laid out), not mid-render.
        await expect.poll(() => page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), { message: view, timeout: 3000 }).toBe(true);
        await screenshot(page, `look-${name}-${options.colorScheme}-${options.width}`);
      }
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('writes every state in a colour readable on the page and on panels, in both schemes', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, context } = await openPage(browser, { colorScheme });
      await page.goto(`${server.url}/#/runs`);
      await page.locator('main h1').waitFor();
      const colours = await page.evaluate((states) => {
        const main = document.querySelector('main')!;
        const panel = document.querySelector('header.top')!;
        const read = (state: string) => {
          const badge = document.createElement('span');
          badge.className = `badge status-${state}`;
          badge.textContent = state;
          main.append(badge);
          const colour = getComputedStyle(badge).color;
          badge.remove();
          return colour;
        };
        return {
          background: getComputedStyle(document.body).backgroundColor,
          panel: getComputedStyle(panel).backgroundColor,
          states: Object.fromEntries(states.map((state) => [state, read(state)])),
        };
      }, STATES);
      const pairs = STATES.flatMap((state) => [
        [colours.states[state]!, colours.background],
        [colours.states[state]!, colours.panel],
      ]) as Array<[string, string]>;
      const ratios = await contrastIn(page, pairs);
      STATES.forEach((state, i) => {
        expect(ratios[2 * i], `${state} on the page (${colorScheme})`).toBeGreaterThanOrEqual(4.5);
        expect(ratios[2 * i + 1], `${state} on a panel (${colorScheme})`).toBeGreaterThanOrEqual(4.5);
      });
      await context.close();
    }
  });

  it("outlines each DAG node in its state's colour", async () => {
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${server.url}/#/runs/${pausedRun}`);
    await page.locator('g.dag-node[data-status="waiting_approval"]').waitFor();
    const strokes = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll('g.dag-node')].map((g) => [g.getAttribute('data-status'), getComputedStyle(g.querySelector('rect')!).stroke]),
      ),
    );
    const badge = (state: string) => page.locator(`.nodes .badge.status-${state}`).evaluate((el) => getComputedStyle(el).color);
    expect(strokes.completed).toBe(await badge('completed'));
    expect(strokes.waiting_approval).toBe(await badge('waiting_approval'));
    expect(strokes.pending).toBe(await badge('pending'));
    expect(new Set(Object.values(strokes)).size).toBe(3);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows why an invalid workflow file does not load, on the file's own page", async () => {
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${server.url}/#/workflows`);
    const link = page.getByRole('link', { name: /broken\.yaml/ });
    await link.waitFor();
    await link.click();
    await page.waitForURL(/#\/workflows\/broken$/);
    const note = page.locator('[data-invalid-file$="broken.yaml"]');
    await note.waitFor();
    await expect(note.locator('li').allTextContents()).resolves.toEqual([
      expect.stringContaining("missing required field 'description'"),
      expect.stringContaining("unknown node 'missing'"),
    ]);
    await screenshot(page, 'workflow-invalid');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('follows a link from the keyboard and goes on inside the page it opened', async () => {
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${server.url}/#/runs`);
    const link = page.locator(`tr[data-run-id="${failedRun}"] a`);
    await link.focus();
    await page.keyboard.press('Enter');
    await page.locator(`section[data-run-id="${failedRun}"]`).waitFor();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => ({
      inMain: document.querySelector('main')!.contains(document.activeElement),
      text: document.activeElement?.textContent,
    }));
    expect(focused).toEqual({ inMain: true, text: '← Runs' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('approves from the keyboard alone, every stop on the way visibly focused', async () => {
    const { page, context, problems } = await openPage(browser);
    await page.goto(`${server.url}/#/runs/${pausedRun}`);
    await page.locator('section[data-status="paused"]').waitFor();
    const unringed: string[] = [];
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement;
        const style = getComputedStyle(el);
        return { text: el.textContent?.trim().slice(0, 30) ?? '', tag: el.tagName, outlined: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      });
      if (!focused.outlined) unringed.push(`${focused.tag} ${focused.text}`);
      reached = focused.tag === 'BUTTON' && focused.text === 'Approve';
    }
    expect(reached).toBe(true);
    expect(unringed).toEqual([]);
    await page.keyboard.press('Enter');
    await page.locator('section[data-status="completed"]').waitFor();
    // The approval box is gone with the button that had focus; the next Tab stays in the page.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.querySelector('main')!.contains(document.activeElement))).toBe(true);
    // On to the DAG, whose nodes are Tab stops too: a focused node is ringed in the focus colour.
    for (let i = 0; i < 20 && !(await page.evaluate(() => document.activeElement?.matches('g.dag-node'))); i++) await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.matches('g.dag-node'))).toBe(true);
    const ring = await page.evaluate(() => ({
      stroke: getComputedStyle(document.activeElement.querySelector('rect')).stroke,
      focus: getComputedStyle(document.documentElement).getPropertyValue('--focus').trim(),
    }));
    expect(ring.stroke).toBe(`rgb(${[1, 3, 5].map((i) => parseInt(ring.focus.slice(i, i + 2), 16)).join(', ')})`);
    expect(problems).toEqual([]);
    await context.close();
  });
});
