import { killOrphanGroup, readProcessFile } from '../../processes/index.js';
import { removeLeftPlaceholders } from '../../sandbox/index.js';
import type { Logger } from '../../shared/logger.js';
import { moveNode } from '../model/lifecycle.js';
import { transition } from '../storage/transition.js';
import { sumCost } from '../model/node-state.js';
import { without } from '../model/run-snapshot.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunRecord } from '../model/types.js';

const now = () => new Date().toISOString();

/** A run whose server stopped while it executed ends `failed`/`interrupted` (resumable); resolves to its snapshot so. */
export async function interruptRun(runs: RunStore, logger: Logger, run: RunRecord): Promise<RunRecord> {
  const nodes = { ...run.nodes };
  for (const [nodeId, state] of Object.entries(run.nodes)) {
    if (state.status === 'completed') continue;
    // Its processes outlived the server (they lead their own groups): stop them, or a resume would
    // run the node twice. Any unfinished node with a process file is stopped, whatever the
    // record says of it: after a power loss the record may be a round behind its processes. Only
    // this SVC_HOME's files are seen: a server never kills what another machine started.
    const leader = readProcessFile(runs.processFile(run.id, nodeId));
    if (leader && killOrphanGroup(leader.pid, leader.startTime)) {
      logger.warn('run.orphan_killed', { runId: run.id, nodeId, pid: leader.pid });
    }
    // A node waiting for its agent slot was executing too (a wait node waiting is not: it keeps its place).
    const executing = state.status === 'running' || (state.status === 'waiting' && (state.waitingFor === 'agent_slot' || state.waitingFor === 'memory'));
    if (executing) nodes[nodeId] = without(moveNode(state, 'interrupt', { error: 'interrupted', errorCode: 'interrupted', finishedAt: now() }), 'waitingFor');
  }
  const interrupted = await transition(runs, run, 'interrupt', {
    patch: { nodes, error: 'interrupted', errorCode: 'interrupted', finishedAt: now(), costUsd: sumCost(Object.values(nodes)) },
    events: [{ type: 'run_failed', fields: { error: 'interrupted', code: 'interrupted' } }],
  });
  // A sandbox's placeholders, mounted while its node ran, outlive a crash (sandbox/placeholders.ts).
  if (Object.values(run.nodes).some((state) => state.sandbox === 'on')) {
    const removed = await removeLeftPlaceholders(run.cwd);
    if (removed.length) logger.info('run.placeholders_removed', { runId: run.id, paths: removed });
  }
  logger.warn('run.interrupted', { runId: run.id, workflow: run.workflow });
  return interrupted;
}
