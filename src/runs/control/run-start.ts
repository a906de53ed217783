import type { EngineDeps } from './engine-deps.js';
import type { StartRunRequest } from '../model/start-request.js';
import { DomainError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { followOnBase } from './follow-on.js';
import { newRunRecord, resumedNodes, resumedVersion } from './new-run.js';
import { checkRunPermissions, inheritedCap } from '../model/permission-cap.js';
import type { RunStore } from '../storage/run-store.js';
import type { RunExecutions } from './run-execution.js';
import { transition } from '../storage/transition.js';
import type { RunRecord } from '../model/types.js';
import type { ResolvedWorkflow } from '../model/workflow-resolver.js';

/**
 * A run's workspace (docs/contract.md, "Workspaces"): the one asked for; its conversation's; for a
 * webhook run, the one its workflow was found in. A run a person starts (`cli`, `api`), unless
 * `inPlace`, then goes to the workspace its workflow belongs to, else to the one whose checkout holds
 * its cwd: the user's checkout is theirs, and a run edits a worktree of its own (docs/decisions.md,
 * "A workspace's workflows and runs belong to it"). Otherwise none, and it runs in its cwd.
 */
function workspaceOf(request: StartRunRequest, ofConversation: string | null, resolved: ResolvedWorkflow): string | null {
  if (request.workspaceId) return request.workspaceId;
  if (ofConversation) return ofConversation;
  if (request.trigger === 'webhook') return resolved.workspaceId;
  if (request.inPlace || (request.trigger !== 'cli' && request.trigger !== 'api')) return null;
  return resolved.workspaceId ?? resolved.workspaceHere ?? null;
}

/**
 * Starting a run: a new one in its place (a workspace's worktree, or its cwd), or — for a start in a
 * conversation whose last run failed and was marked to resume — that run continued, its completed
 * nodes kept. Either way the run is then handed to the executions to run or queue.
 */
export class RunStarts {
  /** Failed runs a start is continuing now (a second start of the same conversation meanwhile starts a new run). */
  #continuing = new Set<string>();

  constructor(
    private readonly deps: Pick<EngineDeps, 'resolver' | 'conversations' | 'coordination' | 'worktrees'>,
    private readonly runs: RunStore,
    private readonly executions: RunExecutions,
  ) {}

  async start(request: StartRunRequest): Promise<RunRecord> {
    const cwd = request.cwd ?? process.cwd();
    if (request.inPlace && request.workspaceId) {
      throw new DomainError('invalid_request', 'A run is either in place (inPlace) or on a workspace (workspaceId), not both.', [
        { path: 'inPlace', message: 'inPlace cannot be combined with workspaceId' },
      ]);
    }
    const conversationId = request.conversationId ?? null;
    const ofConversation = conversationId !== null ? await this.deps.conversations.workspaceOf(conversationId) : null;
    // The workflow as its workspace defines it: the one named, else the conversation's, else the one holding cwd.
    const resolved = await this.deps.resolver.resolve(request.workflow, cwd, request.workspaceId ?? ofConversation);
    if (!resolved) throw new DomainError('workflow_not_found', `No workflow named '${request.workflow}' (bundled or in ${cwd}/.svc/workflows).`);
    checkRunPermissions(resolved.workflow, request.permissions);
    if (request.permissionsAtMost && !request.permissions) request = { ...request, permissions: inheritedCap(resolved.workflow, request.permissionsAtMost) };
    const resumable = conversationId !== null ? await this.runs.resumable(request.workflow, conversationId) : undefined;
    // A second start of the same conversation may be continuing it already.
    if (resumable?.resumePending && resumable.status === 'failed' && !this.#continuing.has(resumable.id)) return this.#continue(resumable, resolved);

    const id = request.runId ?? newId('run');
    // A follow-on run is on the earlier run's workspace (unless one was asked for: then they must
    // agree), its branch starting at that run's head commit — its base commit from the start, also
    // when a server places it only at launch.
    const follow = request.fromRunId ? await followOnBase(this.runs, request.fromRunId, request.workspaceId || ofConversation || null) : undefined;
    const workspaceId = follow?.workspaceId ?? workspaceOf(request, ofConversation, resolved);
    // On a workspace a run is in a worktree of its own, made now so that the run's cwd is on record
    // from the start — with a shared database, by the server that executes it, at launch (the
    // workspace's path until then).
    const place = !workspaceId
      ? { cwd }
      : this.deps.coordination.placesRunsAtLaunch
        ? { cwd: await this.deps.worktrees.pathOf(workspaceId), ...(follow ? { baseCommit: follow.commit } : {}) }
        : await this.deps.worktrees.place(workspaceId, id, follow ? { from: follow.commit } : {});
    const platformId = await this.deps.conversations.createWorker({ id, workflow: request.workflow, workspaceId });
    const fresh = newRunRecord(request, resolved, { ...place, id, conversationId, platformId, workspaceId, fromRunId: follow?.fromRunId });
    const run = await transition(this.runs, fresh, 'create', { events: [{ type: 'run_created', fields: { trigger: fresh.trigger, message: fresh.message } }] });
    if (request.agents) this.executions.giveAgents(id, request.agents);
    return this.executions.enqueue(run);
  }

  /**
   * Resume: same run id; completed nodes keep their outputs, everything else runs again. The nodes
   * are those of the definition as it is now (a node removed to fix the workflow is gone).
   */
  async #continue(run: RunRecord, resolved: ResolvedWorkflow): Promise<RunRecord> {
    // Claimed before anything is awaited: a second start of the same conversation meanwhile must
    // not continue the same run twice.
    this.#continuing.add(run.id);
    try {
      let cwd = run.cwd;
      if (run.workspaceId) {
        try {
          // The run's own worktree, with what its completed nodes did; one cleaned up is not made
          // again (their changes are gone), nor is one of a workspace deleted meanwhile.
          cwd = (await this.deps.worktrees.resume(run.workspaceId, run.id)).cwd;
        } catch (error) {
          await this.runs.save({ ...run, resumePending: false });
          throw error;
        }
      }
      const nodes = resumedNodes(run, resolved);
      const skipped = Object.keys(nodes).filter((id) => nodes[id]!.status === 'completed');
      const continued = await transition(this.runs, run, 'continue', {
        patch: {
          nodes,
          cwd,
          resumePending: false,
          error: null,
          errorCode: null,
          resumeAt: null,
          autoResumeAt: null,
          wakeAt: null,
          finishedAt: null,
          ...resumedVersion(run, resolved),
        },
        events: [{ type: 'run_resumed', fields: { skipped } }],
      });
      return await this.executions.enqueue(continued);
    } finally {
      this.#continuing.delete(run.id);
    }
  }
}
