// What a node is admitted at (docs/decisions.md, "Memory admission"): its `memory:` request, else
// the nearest-rank p95 of its measured peaks in the newest runs of its workflow on its workspace
// (three peaks at least), else the default of its kind; and a history that cannot be read in time,
// on a real PostgreSQL, costs the node at most a second and never its start.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NODE_ESTIMATE_BYTES } from '../../src/processes/index.js';
import { estimateNodeMemory, MEMORY_HISTORY_RUNS, MEMORY_HISTORY_TIMEOUT_MS } from '../../src/runs/executor/memory-estimate.js';
import type { RunRecord } from '../../src/runs/model/types.js';
import { postgresRunSummaryIndex } from '../../src/runs/storage/postgres-run-summaries.js';
import { openRunSummaryIndex } from '../../src/runs/storage/run-summaries.js';
import { createLogger, silentLogger } from '../../src/shared/logger.js';
import { openPostgres } from '../../src/store/postgres/index.js';
import { validateWorkflowSource, type WorkflowNode } from '../../src/workflows/index.js';
import { readJsonLines } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';

/** The nodes of a workflow as svc reads it: `test` (bash), `ask` (an agent), `sized` (bash with `memory: 600MB`). */
const nodes = (() => {
  const parsed = validateWorkflowSource(
    [
      'name: build',
      'description: d',
      'nodes:',
      '  - id: test',
      '    bash: "true"',
      '  - id: ask',
      '    prompt: hi',
      '  - id: sized',
      '    bash: "true"',
      '    memory: 600MB',
    ].join('\n'),
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  return Object.fromEntries(parsed.workflow.nodes.map((node) => [node.id, node])) as Record<'test' | 'ask' | 'sized', WorkflowNode>;
})();

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();

/** An ended run of `build` whose `test` node peaked at `peak` bytes (each one ends a second after the last). */
const ended = (n: number, peak: number, workspaceId: string | null = null): RunRecord =>
  ({
    id: `run_${String(n).padStart(6, '0')}h`,
    workflow: 'build',
    status: 'completed',
    workspaceId,
    trigger: 'api',
    createdAt: at(n),
    startedAt: at(n),
    finishedAt: at(n + 1),
    updatedAt: at(n + 1),
    costUsd: null,
    nodes: {
      test: {
        status: 'completed',
        startedAt: at(n),
        finishedAt: at(n + 1),
        durationMs: 1000,
        costUsd: null,
        output: '',
        error: null,
        attempts: 1,
        peakRssBytes: peak,
      },
    },
    definition: { name: 'build', nodes: [] },
  }) as unknown as RunRecord;

const thisRun = { id: 'run_now', workflow: 'build', workspaceId: null };

describe('the estimate, from the file store’s summaries', () => {
  it('is the request when the workflow gives one, whatever the history', async () => {
    const history = openRunSummaryIndex([1, 2, 3].map((n) => ended(n, 900e6)));
    expect(await estimateNodeMemory({ history, logger: silentLogger }, thisRun, nodes.sized)).toEqual({ bytes: 600e6, source: 'request' });
  });

  it('is the default of its kind with fewer than three measured peaks', async () => {
    const history = openRunSummaryIndex([ended(1, 300e6), ended(2, 300e6)]);
    expect(await estimateNodeMemory({ history, logger: silentLogger }, thisRun, nodes.test)).toEqual({
      bytes: DEFAULT_NODE_ESTIMATE_BYTES.bash,
      source: 'default',
    });
    expect(await estimateNodeMemory({ history, logger: silentLogger }, thisRun, nodes.ask)).toEqual({
      bytes: DEFAULT_NODE_ESTIMATE_BYTES.agent,
      source: 'default',
    });
  });

  it('is the nearest-rank p95 of the peaks in the newest runs on the same workspace', async () => {
    // Peaks 1..20 MB in order; p95 of 20 is the 19th smallest.
    const twenty = Array.from({ length: 20 }, (_, i) => ended(i + 1, (i + 1) * 1e6));
    const history = openRunSummaryIndex(twenty);
    expect(await estimateNodeMemory({ history, logger: silentLogger }, thisRun, nodes.test)).toEqual({ bytes: 19e6, source: 'history' });
    // Three peaks: the largest.
    const three = openRunSummaryIndex([ended(1, 5e6), ended(2, 7e6), ended(3, 6e6)]);
    expect(await estimateNodeMemory({ history: three, logger: silentLogger }, thisRun, nodes.test)).toEqual({ bytes: 7e6, source: 'history' });
    // Older runs than the newest MEMORY_HISTORY_RUNS are not read: an old 1 GB peak is forgotten.
    const forgotten = openRunSummaryIndex([ended(0, 1e9), ...Array.from({ length: MEMORY_HISTORY_RUNS }, (_, i) => ended(i + 1, 10e6))]);
    expect(await estimateNodeMemory({ history: forgotten, logger: silentLogger }, thisRun, nodes.test)).toEqual({ bytes: 10e6, source: 'history' });
    // Another workspace's runs of the same workflow are another history.
    const elsewhere = openRunSummaryIndex([1, 2, 3].map((n) => ended(n, 900e6, 'ws_other')));
    expect((await estimateNodeMemory({ history: elsewhere, logger: silentLogger }, thisRun, nodes.test)).source).toBe('default');
    expect(await estimateNodeMemory({ history: elsewhere, logger: silentLogger }, { ...thisRun, workspaceId: 'ws_other' }, nodes.test)).toEqual({
      bytes: 900e6,
      source: 'history',
    });
  });
});

describe('the estimate, from PostgreSQL when the history cannot be read', () => {
  const postgres = usePostgres();
  let logDir: string;
  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'svc-estimate-'));
  });
  afterAll(() => rm(logDir, { recursive: true, force: true }));

  it('a table locked by another transaction: the default after MEMORY_HISTORY_TIMEOUT_MS, said in the log', async () => {
    const url = await postgres.createDatabase();
    const db = await openPostgres({ url, logger: silentLogger });
    const history = postgresRunSummaryIndex(db);
    for (const n of [1, 2, 3]) await history.update(ended(n, 300e6));
    const logFile = join(logDir, 'slow.log');
    const logger = createLogger({ level: 'info', file: logFile });
    expect(await estimateNodeMemory({ history, logger }, thisRun, nodes.test)).toEqual({ bytes: 300e6, source: 'history' });

    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE run_summaries IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      expect(await estimateNodeMemory({ history, logger }, thisRun, nodes.test)).toEqual({ bytes: DEFAULT_NODE_ESTIMATE_BYTES.bash, source: 'default' });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(MEMORY_HISTORY_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(MEMORY_HISTORY_TIMEOUT_MS + 1000);
      expect(readJsonLines(logFile)).toContainEqual(expect.objectContaining({ event: 'run.memory_history_slow', runId: 'run_now', nodeId: 'test' }));
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await db.close();
  });

  it('a database gone: the default at once, said in the log', async () => {
    const url = await postgres.createDatabase();
    const db = await openPostgres({ url, logger: silentLogger });
    const history = postgresRunSummaryIndex(db);
    await db.close();
    const logFile = join(logDir, 'failed.log');
    const logger = createLogger({ level: 'info', file: logFile });
    expect(await estimateNodeMemory({ history, logger }, thisRun, nodes.ask)).toEqual({ bytes: DEFAULT_NODE_ESTIMATE_BYTES.agent, source: 'default' });
    expect(readJsonLines(logFile)).toContainEqual(expect.objectContaining({ event: 'run.memory_history_failed', nodeId: 'ask' }));
  });
});
