// The pieces of following a pull request that need no server (docs/decisions.md, "Pull request
// reactions"): the excerpt kept of a failed job's log and its bounds, what makes a failure the CI's
// own, the backoff schedule, a delivery's pull requests, and the workflow keys checked at their place.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGh } from '../../src/landing/index.js';
import { EXCERPT_AFTER, EXCERPT_BEFORE, EXCERPT_MAX_CHARS, excerptOf, githubDeliveryRefs } from '../../src/pulls/index.js';
import { EXCERPT_LINE_CHARS } from '../../src/pulls/ci-log.js';
import { cleanText, cutText } from '../../src/pulls/clean-text.js';
import { originalPermissions } from '../../src/pulls/reactions.js';
import { lookIntervalMs } from '../../src/pulls/schedule.js';
import { validateWorkflowSource } from '../../src/workflows/validate.js';
import { failedJobLog } from './fixture.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('a failed job log', () => {
  it('keeps the lines around the first error line, its step, and leaves out the summary below', () => {
    const excerpt = excerptOf(failedJobLog(), 'test');
    expect(excerpt).toMatchObject({ failingStep: 'Run npm test', found: true, infrastructure: null });
    const lines = excerpt.excerpt.split('\n');
    expect(lines).toHaveLength(EXCERPT_BEFORE + EXCERPT_AFTER);
    expect(lines[EXCERPT_BEFORE]).toBe('FAIL src/math.test.js');
    expect(lines[0]).toBe('setting up 11');
    expect(excerpt.excerpt).not.toContain('2026-01-01T00:00:00');
    expect(excerpt.excerpt).not.toContain('summary line 119');
  });

  it("only the check's own job; no error line: the log's end, said so; bounded whatever its lines", () => {
    const log = [failedJobLog(['FAIL other.js'], 'lint'), failedJobLog(['Error: boom'], 'test')].join('\n');
    expect(excerptOf(log, 'test').excerpt).toContain('Error: boom');
    expect(excerptOf(log, 'test').excerpt).not.toContain('FAIL other.js');
    const quiet = excerptOf(['a', 'b', 'c'].join('\n'), 'test');
    expect(quiet).toMatchObject({ found: false, failingStep: null, excerpt: 'a\nb\nc' });
    const huge = excerptOf(`Error: x\n${'y'.repeat(1000)}\n`.repeat(200), 'test');
    expect(huge.excerpt.length).toBeLessThanOrEqual(EXCERPT_MAX_CHARS + 100);
  });

  it("only GitHub's runner, on an ##[error] line, in its own words, makes the failure the CI's own", () => {
    for (const words of [
      'The job was not started because recent account payments have failed or your spending limit needs to be increased.',
      'The job running on runner GitHub Actions 12 has exceeded the maximum execution time of 360 minutes.',
      'The runner has received a shutdown signal. This can happen when the runner service is stopped.',
      'The hosted runner: GitHub Actions 3 lost communication with the server.',
    ]) {
      expect(excerptOf(failedJobLog([`##[error]${words}`]), 'test').infrastructure).toContain(words);
    }
    expect(excerptOf(failedJobLog(), 'test').infrastructure).toBeNull();
  });

  it("the code's own failures that name billing, infrastructure or a rate limit are the code's", () => {
    for (const line of [
      'FAIL src/billing/invoice.test.ts',
      'FAIL src/infrastructure/db.test.ts',
      'Error: expected retry after rate limit',
      'quota exceeded: you have exceeded your quota',
      // The phrase, but printed by the code, not on a runner's ##[error] line.
      'console.log: The runner has received a shutdown signal',
    ]) {
      const excerpt = excerptOf(failedJobLog([line]), 'test');
      expect(excerpt.infrastructure, line).toBeNull();
    }
  });

  it('terminal escapes, NUL and control characters go; a cut never splits a surrogate pair', () => {
    const colored = excerptOf(failedJobLog(['\x1b[31mFAIL\x1b[0m src/a.test.ts\u0000\u0007 boom']), 'test');
    expect(colored.excerpt).toContain('FAIL src/a.test.ts boom');
    expect(colored.excerpt).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    // An emoji across the 400th unit: the line is cut before it, not through it.
    const emoji = excerptOf(`Error: ${'x'.repeat(EXCERPT_LINE_CHARS - 8)}😀😀😀\n`, 'test');
    expect(emoji.excerpt).not.toMatch(LONE_SURROGATE);
    const big = excerptOf(`Error: x\n${`${'😀'.repeat(199)}\n`.repeat(200)}`, 'test');
    expect(big.excerpt).not.toMatch(LONE_SURROGATE);
    expect(cleanText('a\ud800b\u0000c\r\nd\te')).toBe('a\ufffdbc\nd\te');
    expect(cutText('ab😀', 3)).toBe('ab');
  });
});

describe('the schedule', () => {
  const at = (minutesAgo: number) => ({ followedAt: new Date(Date.parse('2026-01-10T00:00:00Z') - minutesAgo * 60_000).toISOString(), reactions: [] });
  const now = new Date('2026-01-10T00:00:00Z');
  it('every 30 s at first, slower as the pull request ages; SVC_PR_POLL_MS fixed', () => {
    expect([0, 59, 61, 400, 2000, 20_000].map((m) => lookIntervalMs(at(m), now, undefined))).toEqual([30_000, 30_000, 120_000, 300_000, 900_000, 3_600_000]);
    expect(lookIntervalMs(at(20_000), now, 250)).toBe(250);
  });
});

describe('a GitHub delivery', () => {
  it('names the pull requests and branches of its payload; anything else names none', () => {
    const repository = { html_url: 'https://github.com/me/widgets' };
    expect(githubDeliveryRefs('check_run', { repository, check_run: { check_suite: { head_branch: 'svc/run_a' }, pull_requests: [{ number: 3 }] } })).toEqual([
      { repo: 'me/widgets', number: 3 },
      { branch: 'svc/run_a' },
    ]);
    expect(githubDeliveryRefs('pull_request', { pull_request: { html_url: 'https://ghe.example.com/me/widgets/pull/9', head: { ref: 'svc/run_b' } } })).toEqual(
      [{ repo: 'ghe.example.com/me/widgets', number: 9 }, { branch: 'svc/run_b' }],
    );
    expect(githubDeliveryRefs('check_suite', { check_suite: 'nope' })).toEqual([]);
    expect(githubDeliveryRefs('push', { ref: 'refs/heads/main' })).toEqual([]);
  });
});

describe('the workflow keys', () => {
  it('on_ci_failure, on_review and max_fix_cycles are checked, each problem at its line and column', () => {
    const ok = validateWorkflowSource(
      'name: demo\ndescription: d\non_ci_failure: my-fix\non_review: my-review\nmax_fix_cycles: 1\nnodes:\n  - { id: a, bash: echo }\n',
    );
    expect(ok.ok).toBe(true);
    const bad = validateWorkflowSource('name: demo\ndescription: d\non_ci_failure: "Not A Name"\nmax_fix_cycles: -1\nnodes:\n  - { id: a, bash: echo }\n');
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors;
    expect(errors).toEqual([expect.stringMatching(/^3:\d+: on_ci_failure: invalid workflow name/), expect.stringMatching(/^4:\d+: max_fix_cycles: /)]);
  });
});

describe("what a reaction's run may do at most", () => {
  const bash = { id: 'b', bash: 'echo' };
  const definition = (workflow: Record<string, unknown>) => ({ permissions: null, definition: { name: 'w', ...workflow } });

  it("the original run's own cap, else its workflow's highest agent node, else the workflow's permissions:, else edit", () => {
    expect(originalPermissions({ ...definition({ nodes: [{ id: 'p', prompt: 'x', permissions: 'full' }] }), permissions: 'read' })).toBe('read');
    // A node saying nothing edits, as it runs.
    const reader = { id: 'p', prompt: 'x', permissions: 'read' };
    expect(originalPermissions(definition({ nodes: [reader, { id: 'q', prompt: 'y' }] }))).toBe('edit');
    expect(originalPermissions(definition({ permissions: 'read', nodes: [{ id: 'p', prompt: 'x' }, bash] }))).toBe('read');
    // No agent at all: what the workflow says its agents may do still bounds its follow-on runs'.
    expect(originalPermissions(definition({ permissions: 'read', nodes: [bash] }))).toBe('read');
    expect(originalPermissions(definition({ nodes: [bash] }))).toBe('edit');
    expect(originalPermissions({ permissions: null, definition: null })).toBe('edit');
  });
});

describe('gh, when the server closes', () => {
  it('a gh call under way is stopped by the signal, not waited for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-gh-hang-'));
    const bin = join(dir, 'gh');
    // A gh that never answers (GitHub unreachable, a stalled connection).
    writeFileSync(bin, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
    const closing = new AbortController();
    const call = runGh(bin, ['pr', 'view', '7'], { cwd: dir, git: { env: process.env }, why: 'test', signal: closing.signal });
    closing.abort();
    const result = await call;
    expect(result.code === 0).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
