// Auto-resume with several servers on one PostgreSQL database (docs/decisions.md, "Auto-resume"): every server's timer sees the appointment, and the compare-and-set on the run
// record lets exactly one of them resume the run.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { cleanupAll, eventTypes, FAKE_CLAUDE, type Json, projectWithWorkflows, readJsonLines, startRun, tempDir, waitForRun } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
afterEach(async () => {
  await killAllServes();
  await cleanupAll();
});

it('two servers due at the same moment: the run is resumed once, skipping its completed node', async () => {
  const url = await postgres.createDatabase();
  const project = await projectWithWorkflows([
    {
      name: 'auto',
      auto_resume: true,
      nodes: [
        { id: 'one', prompt: 'step one of $RUN_ID' },
        { id: 'two', prompt: 'step two for $ARGUMENTS', depends_on: ['one'] },
      ],
    },
  ]);
  const claudeLog = join(await tempDir('svc-pg-auto-resume-'), 'claude.jsonl');
  const env = { SVC_DATABASE_URL: url, SVC_CLAUDE_BIN: FAKE_CLAUDE, FAKE_CLAUDE_LOG: claudeLog };
  const [a, b] = await Promise.all([0, 1].map(async () => spawnServe({ home: await tempDir('svc-pg-home-'), cwd: project, env })));
  const reset = Math.floor(Date.now() / 1000) + 5;
  const message = `[fake:usage-limit=Claude AI usage limit reached|${reset}] [fake:limit-until=${reset}]`;
  const runId = await startRun(a!, 'auto', { message, cwd: project });

  const done = await waitForRun(b!, runId, (run) => run.status === 'completed' && eventTypes(run).at(-1) === 'run_completed', 40_000);
  expect(done.events.filter((e: Json) => e.type === 'auto_resume_scheduled')).toHaveLength(1);
  expect(done.events.filter((e: Json) => e.type === 'run_resumed')).toEqual([expect.objectContaining({ skipped: ['one'] })]);
  const calls = readJsonLines(claudeLog);
  expect(calls.filter((call) => String(call.stdin).includes(`step one of ${runId}`))).toHaveLength(1);
  expect(calls.filter((call) => String(call.stdin).includes('step two for'))).toHaveLength(2);
});
