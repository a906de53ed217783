// The run page's pull request in Debian's Chromium (issue 37, docs/decisions.md, "Pull request
// reactions"), a real followed pull request played by the stand-in gh against a real bare origin:
// a red check shows, live, as failing with its step, and its reaction links its follow-on run;
// approved there, the reaction is pushed and the checks of the new head show green, then the merge
// and its cleanup. A check with a hostile name and a `javascript:` address, past max_fix_cycles,
// asks a person: the reason and the name are text, the address is not a link; the person's Go on
// with room for one more reaction starts it.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getRun } from '../helpers/runs.js';
import { launchBrowser, openPage, screenshot } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { ACTIONS_RUN, checkRun, failedJobLog, FIX_CI, gated, grownRun, openPullRequest, pullServer, type FakeGh } from '../pulls/fixture.js';

let server: TestServer;
let gh: FakeGh;
let browser: Browser;

beforeAll(async () => {
  ({ server, gh } = await pullServer({}, { socket: true }));
  gh.edit((state) => {
    state.logs[ACTIONS_RUN] = failedJobLog();
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanupAll();
});

const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_URL = 'javascript:window.__pwned=2';

describe("a run's pull request on its page", () => {
  it('shows the PR, the failing check and the reaction live, links the follow-on run; pushed, the new head green; merged, the cleanup', async () => {
    const { bare, run } = await grownRun(server, [gated(FIX_CI)]);
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${run.id}`);
      await p.locator(`section[data-run-id="${run.id}"][data-status="completed"]`).waitFor();
      expect(await p.locator('section.pull-request').count()).toBe(0);

      // Followed once the page is open: what follows comes by the run's stream.
      const number = await openPullRequest(server, gh, run, bare, {
        checks: { [run.headCommit]: [checkRun('FAILURE')] },
        // The pushed head's check runs until the test says it passed.
        defaultChecks: [checkRun(null)],
      });
      const panel = p.locator(`section.pull-request[data-pr="${number}"]`);
      const reaction = panel.locator('tr[data-reaction][data-reaction-state="running"]');
      await reaction.waitFor();
      const followOnId = (await reaction.getAttribute('data-reaction'))!;
      expect(followOnId).toBe((await getRun(server, run.id)).pr.reactions[0].followOnRunId);

      const link = panel.locator('[data-pr-link] a');
      await expect(link.getAttribute('href')).resolves.toBe(`https://github.com/me/widgets/pull/${number}`);
      await expect(link.getAttribute('rel')).resolves.toContain('noopener');
      await expect(link.getAttribute('target')).resolves.toBe('_blank');
      await expect(link.innerText()).resolves.toBe(`#${number}`);
      await expect(panel.locator('[data-pr-head]').innerText()).resolves.toBe(run.headCommit.slice(0, 10));

      const check = panel.locator('tr[data-pr-check="test"][data-check-state="failure"]');
      await expect(check.innerText()).resolves.toMatch(/failure at Run npm test/);
      await expect(check.locator('a').getAttribute('href')).resolves.toBe(`https://github.com/me/widgets/actions/runs/${ACTIONS_RUN}/job/222`);

      await expect(reaction.locator('[data-reaction-trigger]').innerText()).resolves.toBe('check test failed');
      // The page's list of follow-on runs has it too, without a reload.
      await p.locator(`[data-follow-ons] a[href="#/runs/${followOnId}"]`).waitFor({ timeout: 10_000 });
      await expect(reaction.innerText()).resolves.toContain('fix-ci');
      expect(await panel.locator('[data-needs-human]').count()).toBe(0);
      // Its pull request is open: the run can still be merged or pushed here, not proposed again.
      expect(await p.locator('[data-landing] [data-land="merge"]').count()).toBe(1);
      expect(await p.locator('[data-landing] [data-land="pr"]').count()).toBe(0);
      await screenshot(p, 'run-pull-request');

      // The follow-on run's page, in the app: approved there, its result goes to the pull request.
      await reaction.locator(`a[href="#/runs/${followOnId}"]`).click();
      await p.locator(`section[data-run-id="${followOnId}"][data-status="paused"]`).waitFor();
      await p.getByRole('button', { name: 'Approve' }).click();
      await p.locator(`section[data-run-id="${followOnId}"][data-status="completed"]`).waitFor();
      await p.goBack();
      await panel.locator(`tr[data-reaction="${followOnId}"][data-reaction-state="pushed"]`).waitFor();
      const pushed = (await getRun(server, followOnId)).headCommit as string;
      // The looks after the push see the new head, its check running, then passed: the page follows without a reload.
      await panel.locator(`[data-pr-head="${pushed}"]`).waitFor();
      await panel.locator('tr[data-pr-check="test"][data-check-state="pending"]').waitFor();
      gh.pull(number, (pull) => {
        pull.defaultChecks = [checkRun('SUCCESS')];
      });
      await panel.locator('tr[data-pr-check="test"][data-check-state="success"]').waitFor();

      gh.pull(number, (pull) => {
        pull.state = 'MERGED';
      });
      await p.locator(`section.pull-request[data-pr-state="merged"] [data-pr-cleanup]`).waitFor();
      await expect(panel.locator('[data-pr-cleanup] li').evaluateAll((items) => items.map((li) => li.getAttribute('data-cleanup-run')))).resolves.toEqual([
        run.id,
        followOnId,
      ]);
      await expect(panel.locator('[data-pr-cleanup] li[data-removed="true"]').count()).resolves.toBe(2);
      // Merged on GitHub, it has landed: nothing left to merge, queue, push or propose.
      expect(await p.locator('[data-landing] button').count()).toBe(0);
      await screenshot(p, 'run-pull-request-merged');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('needs a person: the reason shows; a hostile check name is text and its javascript: address no link', async () => {
    const { bare, run } = await grownRun(server, [FIX_CI], { max_fix_cycles: 0 });
    const hostile = { ...checkRun('FAILURE', HOSTILE_NAME), detailsUrl: HOSTILE_URL };
    const number = await openPullRequest(server, gh, run, bare, { defaultChecks: [hostile, checkRun('SUCCESS', 'lint')] });
    const { page: p, problems, context } = await openPage(browser);
    try {
      await p.goto(`${server.url}/#/runs/${run.id}`);
      const panel = p.locator(`section.pull-request[data-pr="${number}"]`);
      const asked = panel.locator('[data-needs-human]');
      await asked.waitFor();
      const reason = (await getRun(server, run.id)).needsHumanReason as string;
      expect(reason).toContain('max_fix_cycles 0');
      expect(reason).toContain(HOSTILE_NAME);
      await expect(asked.innerText()).resolves.toBe(`Needs a person: ${reason}`);

      const check = panel.locator('tr[data-check-state="failure"]');
      await expect(check.locator('td').first().innerText()).resolves.toBe(HOSTILE_NAME);
      // Shown whole, as text, and not a link.
      await expect(check.locator('[data-unlinked]').innerText()).resolves.toContain(HOSTILE_URL);
      expect(await check.locator('a').count()).toBe(0);
      expect(await p.locator('a[href^="javascript:"]').count()).toBe(0);
      expect(await p.locator('section.pull-request img').count()).toBe(0);
      expect(await p.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      await expect(panel.locator('tr[data-pr-check="lint"][data-check-state="success"] a').getAttribute('href')).resolves.toContain('https://');
      // No reaction was started.
      expect(await panel.locator('tr[data-reaction]').count()).toBe(0);
      await screenshot(p, 'run-pull-request-needs-human');
      // In a narrow window, dark: the long reason and the address wrap; nothing pushes the page sideways.
      await p.setViewportSize({ width: 390, height: 800 });
      await p.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(() => p.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), { timeout: 3000 }).toBe(true);
      await screenshot(p, 'run-pull-request-narrow-dark');

      // A person's go-on, with room for one more reaction: the failed check gets its follow-on run,
      // which pushes; the check fails on the new head too, and with the one reaction spent a person
      // is asked again, counted since the resume.
      await p.setViewportSize({ width: 1280, height: 900 });
      await panel.locator('[data-go-on-bound]').fill('1');
      await panel.locator('[data-action="pr-go-on"]').click();
      await panel.locator('tr[data-reaction][data-reaction-state="pushed"]').waitFor({ timeout: 30_000 });
      await expect
        .poll(async () => (await getRun(server, run.id)).needsHumanReason ?? '', { timeout: 20_000 })
        .toContain('1 reaction since the last resume (max_fix_cycles 1)');
      await expect.poll(() => asked.innerText(), { timeout: 10_000 }).toContain('since the last resume');
      await expect(panel.locator('[data-reaction-count]').innerText()).resolves.toBe('(1 of at most 1 since the last resume)');
      await screenshot(p, 'run-pull-request-resumed');
      const resumed = (await getRun(server, run.id)).events.filter((event: { type: string }) => event.type === 'pr_resumed');
      expect(resumed).toEqual([expect.objectContaining({ by: 'api', maxFixCycles: 1 })]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
