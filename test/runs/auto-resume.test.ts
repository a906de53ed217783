// Auto-resume (docs/decisions.md, "Auto-resume"): a run that fails on an agent's usage limit,
// with `auto_resume` on, is resumed by the server when the limit resets — also after a restart in
// between — skipping the nodes it completed; cancel calls the appointment off; off by default.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalApi } from '../../src/runtime.js';
import { loadSettings } from '../../src/shared/settings.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import type { TestServer } from '../helpers/server.js';
import {
  api,
  cleanupAll,
  eventTypes,
  getRun,
  type Json,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitForRun,
} from '../helpers/runs.js';

let project: string;
let claudeLog: string;

/** The fake claude's calls for one test's run (its tag) at one step. */
const calls = (tag: string, step: string) => readJsonLines(claudeLog).filter((call) => String(call.stdin).includes(step) && String(call.stdin).includes(tag));

/**
 * A run message whose limit resets `seconds` from now (or at the epoch second `reset`): the fake hits
 * it until then (its second node's prompt carries it).
 */
function limitedMessage(tag: string, seconds: number, reset = Math.floor(Date.now() / 1000) + seconds): { message: string; resumeAt: string } {
  return {
    message: `${tag} [fake:usage-limit=Claude AI usage limit reached|${reset}] [fake:limit-until=${reset}]`,
    resumeAt: new Date(reset * 1000).toISOString(),
  };
}

/** The limit directives reach only node two (through $ARGUMENTS); the others are told apart by their run's id. */
const THREE_NODES = [
  { id: 'one', prompt: 'step one of $RUN_ID' },
  { id: 'two', prompt: 'step two for $ARGUMENTS', depends_on: ['one'] },
  { id: 'three', prompt: 'step three of $RUN_ID', depends_on: ['two'] },
];

const failedOnLimit = (run: Json) => run.status === 'failed' && eventTypes(run).at(-1) === 'run_failed';
/** Completed, or failed again after its resume (which the test then reports). */
const ended = (run: Json) =>
  (run.status === 'completed' && eventTypes(run).at(-1) === 'run_completed') ||
  (failedOnLimit(run) && eventTypes(run).filter((t) => t === 'run_failed').length > 1);

beforeAll(async () => {
  const dir = await tempDir('svc-auto-resume-');
  claudeLog = join(dir, 'claude.jsonl');
  project = await projectWithWorkflows([
    { name: 'auto', auto_resume: true, nodes: THREE_NODES },
    { name: 'manual', nodes: THREE_NODES },
    { name: 'never', auto_resume: false, nodes: THREE_NODES },
  ]);
  setProcessEnv({ FAKE_CLAUDE_LOG: claudeLog });
});
afterAll(cleanupAll);

describe('a run that fails on a usage limit with auto_resume: true', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ socket: true });
  });

  it('gets an appointment at the reset, announced by auto_resume_scheduled, and resumes by itself without re-running completed nodes', async () => {
    const { message, resumeAt } = limitedMessage('[tag:resume]', 4);
    const runId = await startRun(server, 'auto', { message, cwd: project });
    // The whole story from the events, whatever this machine's speed: the failure with its appointment, then the resume.
    const done = await waitForRun(server, runId, ended, 30_000);
    const types = eventTypes(done);
    expect(types.slice(types.indexOf('auto_resume_scheduled'), types.indexOf('run_resumed') + 1)).toEqual([
      'auto_resume_scheduled',
      'run_failed',
      'run_resumed',
    ]);
    expect(done.events.find((e: Json) => e.type === 'auto_resume_scheduled')).toMatchObject({ at: resumeAt });
    expect(done.events.find((e: Json) => e.type === 'run_failed')).toMatchObject({ code: 'usage_limit', resumeAt });
    expect(done).toMatchObject({ status: 'completed', autoResumeAt: null, wakeAt: null, errorCode: null, resumeAt: null });
    expect(done.events.find((e: Json) => e.type === 'run_resumed')).toMatchObject({ skipped: ['one'] });
    expect(calls(runId, 'step one')).toHaveLength(1);
    expect(calls('[tag:resume]', 'step two')).toHaveLength(2);
    expect(calls(runId, 'step three')).toHaveLength(1);
  });

  it('cancel of the failed run calls the appointment off: it stays failed and is not resumed', async () => {
    const { message, resumeAt } = limitedMessage('[tag:cancel]', 6);
    const runId = await startRun(server, 'auto', { message, cwd: project });
    // A run with an appointment at the same time, left alone: its resume shows the server's timer has fired past that time.
    const controlId = await startRun(server, 'auto', { message: limitedMessage('[tag:control]', 0, Date.parse(resumeAt) / 1000).message, cwd: project });
    const failed = await waitForRun(server, runId, failedOnLimit);
    // The appointment is also the run's wake-up time, which the server's one timer keeps (wake-ups.ts).
    expect(failed).toMatchObject({ errorCode: 'usage_limit', resumeAt, autoResumeAt: resumeAt, wakeAt: resumeAt });
    const shown = await runSvcInProcess(['runs', 'show', runId], { SVC_URL: server.url });
    expect(shown.stdout).toContain(`resumes:  automatically at ${resumeAt}`);
    const calledOff = await runSvcInProcess(['cancel', runId], { SVC_URL: server.url });
    expect(calledOff.stdout).toContain('its auto-resume was called off (it stays failed');
    expect(await getRun(server, runId)).toMatchObject({ status: 'failed', autoResumeAt: null, wakeAt: null });
    // Called off once: a second cancel finds a failed run without one, as before auto-resume (409).
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/cancel`)).body).toMatchObject({ error: 'invalid_run_state' });

    // Once the timer has fired for that time (the control run resumed and completed), nothing resumed this one.
    const control = await waitForRun(server, controlId, ended, 30_000);
    expect(control).toMatchObject({ status: 'completed' });
    expect(eventTypes(control)).toContain('run_resumed');
    const after = await getRun(server, runId);
    expect(after).toMatchObject({ status: 'failed', autoResumeAt: null });
    expect(after.events.find((e: Json) => e.type === 'auto_resume_cancelled')).toMatchObject({ at: resumeAt, reason: 'cancel' });
    expect(eventTypes(after)).not.toContain('run_resumed');
    expect(calls('[tag:cancel]', 'step two')).toHaveLength(1);
  });

  it('off by default: without auto_resume (or with auto_resume: false), no appointment', async () => {
    for (const workflow of ['manual', 'never']) {
      const { message } = limitedMessage(`[tag:off-${workflow}]`, 600);
      const run = await waitForRun(server, await startRun(server, workflow, { message, cwd: project }), failedOnLimit);
      expect(run).toMatchObject({ errorCode: 'usage_limit', autoResumeAt: null });
      expect(eventTypes(run)).not.toContain('auto_resume_scheduled');
    }
  });
});

describe('SVC_AUTO_RESUME_ON_LIMIT', () => {
  it('turns it on for workflows that do not say; auto_resume: false still wins', async () => {
    const server = await startServer({ socket: true, env: { SVC_AUTO_RESUME_ON_LIMIT: '1' } });
    const appointment = async (workflow: string) => {
      const { message } = limitedMessage(`[tag:setting-${workflow}]`, 600);
      const run = await waitForRun(server, await startRun(server, workflow, { message, cwd: project }), failedOnLimit);
      return [run.id as string, run.autoResumeAt as string | null] as const;
    };
    const [runId, at] = await appointment('manual');
    expect(at).toEqual(expect.any(String));
    expect((await appointment('never'))[1]).toBeNull();
    // Abandon calls it off as cancel does; the run stays failed.
    expect(await api(server, 'POST', `/api/workflows/runs/${runId}/abandon`)).toMatchObject({ status: 200, body: { status: 'failed', autoResumeAt: null } });
    expect((await getRun(server, runId!)).events.at(-1)).toMatchObject({ type: 'auto_resume_cancelled', at, reason: 'abandon' });
    expect(loadSettings({}).autoResumeOnLimit).toBe(false);
    expect(loadSettings({ SVC_AUTO_RESUME_ON_LIMIT: 'true' }).autoResumeOnLimit).toBe(true);
  });
});

describe('a restart between the failure and the reset', () => {
  it('keeps the appointment: the next server resumes the run, skipping its completed nodes', async () => {
    const home = await tempDir('svc-auto-resume-home-');
    const first = await startServer({ socket: true, home });
    const { message, resumeAt } = limitedMessage('[tag:restart]', 6);
    const runId = await startRun(first, 'auto', { message, cwd: project });
    await waitForRun(first, runId, failedOnLimit);
    await first.stop();

    // While no server runs, the store holds the appointment (read through the API in this process, read-only).
    const reader = await openLocalApi(loadSettings({ SVC_HOME: home, SVC_LOG_LEVEL: 'warn', SVC_VALIDATE_RESPONSES: '1' }), false);
    const stored = await reader.send({ method: 'GET', path: `/api/workflows/runs/${runId}` });
    await reader.close();
    expect(stored).toMatchObject({ status: 200, body: { status: 'failed', autoResumeAt: resumeAt, wakeAt: resumeAt } });

    const second = await startServer({ socket: true, home });
    const done = await waitForRun(second, runId, ended, 30_000);
    expect(done).toMatchObject({ status: 'completed', autoResumeAt: null });
    expect(calls(runId, 'step one')).toHaveLength(1);
    expect(calls('[tag:restart]', 'step two')).toHaveLength(2);
    expect(calls(runId, 'step three')).toHaveLength(1);
  });
});
