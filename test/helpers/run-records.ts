// Run records written straight into a store before a server opens it: hand-computed benchmark
// fixtures without executing anything, and the index built from records at open (the backfill).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface NodeFixture {
  status?: string;
  ms?: number | null;
  cost?: number | null;
}

export interface RunFixture {
  id: string;
  workflow: string;
  status?: string;
  /** Wall time of the run. */
  ms: number;
  /** When it finished (epoch ms). */
  finishedAtMs: number;
  nodes?: Record<string, NodeFixture>;
  workspaceId?: string | null;
  costUsd?: number | null;
  /** The version it ran (docs/decisions.md, "Versions"); none: a run recorded before versions. */
  definitionHash?: string;
}

/** `run_<n padded>`: ids sort like their creation order, as real run ids do. */
export const runId = (n: number) => `run_${String(n).padStart(6, '0')}`;

export function runRecord(f: RunFixture): Record<string, unknown> {
  const startedAt = new Date(f.finishedAtMs - f.ms).toISOString();
  const finishedAt = new Date(f.finishedAtMs).toISOString();
  const nodes = Object.fromEntries(
    Object.entries(f.nodes ?? {}).map(([id, n]) => {
      const status = n.status ?? 'completed';
      const ran = status !== 'skipped' && status !== 'pending';
      return [
        id,
        {
          status,
          startedAt: ran ? startedAt : null,
          finishedAt: ran ? finishedAt : null,
          durationMs: ran ? (n.ms ?? null) : null,
          costUsd: n.cost ?? null,
          output: null,
          error: null,
          attempts: ran ? 1 : 0,
        },
      ];
    }),
  );
  const status = f.status ?? 'completed';
  const ended = ['completed', 'failed', 'cancelled', 'abandoned'].includes(status);
  return {
    id: f.id,
    workflow: f.workflow,
    status,
    message: '',
    conversationId: `w-${f.id}`,
    platformId: `w-${f.id}`,
    workspaceId: f.workspaceId ?? null,
    cwd: '/tmp',
    trigger: 'api',
    createdAt: startedAt,
    startedAt,
    finishedAt: ended ? finishedAt : null,
    updatedAt: finishedAt,
    error: null,
    costUsd: f.costUsd ?? null,
    nodes,
    resumePending: false,
    variables: {},
    definition: null,
    ...(f.definitionHash ? { definitionHash: f.definitionHash, definitionHashes: [f.definitionHash] } : {}),
  };
}

export async function writeRuns(home: string, runs: RunFixture[]): Promise<void> {
  for (const run of runs) {
    const dir = join(home, 'data', 'runs', run.id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'record.json'), JSON.stringify(runRecord(run)));
  }
}
