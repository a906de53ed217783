// What GitHub says is printed clean (docs/decisions.md, "Pull request reactions"): a check whose
// name and failing step hold an escape sequence and a carriage return reach the run detail, the
// events and `svc runs show` and `svc watch` without either, each on one line of its own.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanupAll } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { ACTIONS_RUN, checkRun, FIX_CI, grownRun, openPullRequest, waitForPull, type FakeGh, pullServer } from './fixture.js';
import { printableLine, printableText } from '../../src/shared/printable.js';
import { RunPrinter } from '../../src/cli/commands/run/_printer.js';
import { testIO } from '../../src/cli/test-io.js';

let server: TestServer;
let gh: FakeGh;

beforeAll(async () => {
  ({ server, gh } = await pullServer({}, { socket: true }));
});

afterAll(cleanupAll);

const HOSTILE = 'lint\u001b[31m\r✔ all green\u001b]8;;https://evil.example\u0007';
const hasControls = (text: string) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text);

it('a check named with an escape sequence and a carriage return: clean in the detail, the events and the printed lines', async () => {
  // max_fix_cycles 0: the failure is told and a person asked at once, the name in both.
  const { bare, run } = await grownRun(server, [FIX_CI], { max_fix_cycles: 0 });
  const line = (step: string, text: string) => `test\t${step}\t2026-01-01T00:00:00.0000000Z ${text}`;
  gh.edit((state) => {
    state.logs[ACTIONS_RUN] = [line('Set up job', 'ok'), line('Run \u001b[1mnpm\u001b[0m test\r', 'FAIL src/a.test.js')].join('\n');
  });
  await openPullRequest(server, gh, run, bare, { defaultChecks: [checkRun('FAILURE', HOSTILE)] });
  const asked = await waitForPull(server, run.id, (r) => r.needsHuman === true && r.events.some((e: { type: string }) => e.type === 'needs_human'));

  const name = asked.pr.checks[0].name as string;
  expect(name).not.toContain('\u001b');
  expect(hasControls(name)).toBe(false);
  const failed = asked.events.find((e: { type: string }) => e.type === 'pr_check_failed');
  const needs = asked.events.find((e: { type: string }) => e.type === 'needs_human');
  for (const text of [failed.check, failed.failingStep, needs.reason] as string[]) {
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\r');
    expect(hasControls(text)).toBe(false);
  }
  expect(failed.check).toBe(name);
  expect(needs.reason).toContain(`checks ${name} failed`);

  const shown = await runSvcInProcess(['--url', server.url, 'runs', 'show', run.id], { SVC_HOME: server.home });
  expect(shown.code).toBe(0);
  expect(shown.stdout).not.toContain('\u001b');
  expect(shown.stdout).not.toContain('\r');
  // One line each: the name cannot print over its line's start nor forge one of its own.
  expect(shown.stdout).toContain('  checks:   lint ✔ all green failure\n');
  expect(shown.stdout).toMatch(/ {2}needs: {4}a person: 0 reactions already \(max_fix_cycles 0\); checks lint ✔ all green failed on [0-9a-f]+.*\n/);

  // The live printer of `svc run` and `svc watch`, given the events as an older server sent them (not cleaned).
  const io = testIO();
  const printer = await RunPrinter.create(io, { verbose: false, quiet: false });
  const base = { at: new Date().toISOString(), runId: run.id, seq: 1, pos: 1, conversationId: null, platformId: 'p', workflow: 'grow' };
  printer.handle({ ...base, type: 'pr_check_failed', number: 7, check: HOSTILE, url: null, commit: 'abc', failingStep: 'Run\rnpm', excerpt: null });
  printer.handle({ ...base, type: 'needs_human', number: 7, reason: `checks ${HOSTILE} failed` });
  printer.close();
  expect(io.stdoutText()).not.toContain('\u001b');
  expect(io.stdoutText()).not.toContain('\r');
  expect(io.stdoutText().split('\n').filter(Boolean)).toEqual([
    '✖ pull request #7: check lint ✔ all green failed at Run npm',
    '! pull request #7 needs a person: checks lint ✔ all green failed',
  ]);
});

it('printableText keeps line feeds and tabs; printableLine makes one line; both drop C1 controls and bidirectional overrides', () => {
  expect(printableText('a\u001b[2Jb\r\nc\td\u009b31m\u202eevil')).toBe('ab\nc\td31mevil');
  expect(printableLine('a\u001b[2Jb\r\nc\td\u009b31m\u202eevil')).toBe('ab c d31mevil');
});
