/**
 * A reaction, from start to outcome (docs/decisions.md, "Pull request reactions"): a follow-on run
 * of the original workflow's `on_ci_failure:` or `on_review:`, started once — its id is chosen and
 * saved before the run is made, so a restart in between makes that same run, never a second — then
 * followed by its state; once it completed, its branch is pushed to the pull request's branch (a
 * fast-forward, never forced) and each review comment it was given is replied to. A follow-on run
 * that does not complete, or whose result cannot be pushed, asks a person.
 */

import { createHash } from 'node:crypto';
import { pushBranch } from '../landing/index.js';
import { isTerminal, type RunRecord } from '../runs/index.js';
import { newId } from '../shared/ids.js';
import { DEFAULT_NODE_PERMISSIONS, PERMISSIONS, type Permissions } from '../shared/permissions.js';
import { toDrawNodes, type RawNode } from '../workflows/index.js';
import { cutText } from './clean-text.js';
import { type Follows } from './deps.js';
import { replyToComment, svcReplies, viewPull, type PullSnapshot } from './github.js';
import type { PullFollow, Reaction, ReactionKind } from './records.js';
import { countedReactions } from './resume.js';
import { replyBody, replyKey } from './texts.js';

export interface ReactionRequest {
  kind: ReactionKind;
  key: string;
  commit: string;
  checks: string[];
  comments: string[];
  /** review: the first comment of each thread of `comments`, where the replies go. */
  threads?: string[];
  message: string;
}

/** Looks after a push at a pull request whose head is not the pushed commit yet (GitHub updates it shortly) before a person is asked. */
export const MAX_CONFIRM_LOOKS = 6;
/** Tries of one reply that failed without GitHub refusing it (a 5xx, gh unreachable) before it is given up. */
export const MAX_REPLY_TRIES = 3;
/**
 * Looks whose read of the review threads failed before svc replies without it: a reply posted just
 * before a stop may then be posted again, which is better than replies, and every later reaction,
 * waiting for ever on a read GitHub never answers.
 */
export const MAX_THREAD_READS = 5;
/** GitHub refused (a reply to a reply, a deleted comment, a secondary rate limit): trying again changes nothing. */
const REFUSED = /\(HTTP 4\d\d\)/;

/**
 * The most the original run's agents could do: its own cap, else its workflow's highest agent
 * node's, else — a workflow of no agent — its workflow's `permissions:` (as a run's own cap is
 * checked against it: runs/model/permission-cap.ts). A follow-on run gets at most this (its own
 * workflow's, if lower).
 */
export function originalPermissions(run: Pick<RunRecord, 'permissions' | 'definition'>): Permissions {
  if (run.permissions) return run.permissions;
  const definition = (run.definition ?? {}) as { nodes?: unknown; permissions?: Permissions };
  const declared = PERMISSIONS.includes(definition.permissions as Permissions) ? definition.permissions! : DEFAULT_NODE_PERMISSIONS;
  if (!Array.isArray(definition.nodes)) return declared;
  const levels = toDrawNodes({ nodes: definition.nodes as RawNode[], permissions: definition.permissions }).flatMap((n) =>
    n.permissions ? [n.permissions] : [],
  );
  // A bash-only workflow saying `permissions: read` never let an agent edit: its follow-on runs' agents may not either.
  if (levels.length === 0) return declared;
  return levels.reduce((top, level) => (PERMISSIONS.indexOf(level) > PERMISSIONS.indexOf(top) ? level : top));
}

/** What a follow keeps of a reaction's message once its run holds it. */
export const MESSAGE_KEPT = 1000;
function keptMessage(message: string, runId: string): Pick<Reaction, 'message' | 'messageSha256'> {
  if (message.length <= MESSAGE_KEPT) return { message };
  return {
    message: `${cutText(message, MESSAGE_KEPT)}\n… (the whole message is run ${runId}'s)`,
    messageSha256: createHash('sha256').update(message).digest('hex'),
  };
}

/** A follow-on run whose outcome is still to come: not finished, or failed with the server's appointment to resume it. */
export const stillToCome = (run: Pick<RunRecord, 'status' | 'autoResumeAt'>): boolean =>
  !isTerminal(run.status) || (run.status === 'failed' && Boolean(run.autoResumeAt));

const replaced = (follow: PullFollow, reaction: Reaction, patch: Partial<Reaction>): Reaction[] =>
  follow.reactions.map((r) => (r.followOnRunId === reaction.followOnRunId ? { ...r, ...patch } : r));

export class Reactions {
  constructor(private readonly follows: Follows) {}

  /** Starts a reaction, unless the pull request had its `max_fix_cycles` already: then a person is asked. */
  async react(follow: PullFollow, run: RunRecord, request: ReactionRequest, pr: PullSnapshot): Promise<PullFollow> {
    // Counted since the last resume, if a person resumed it (resume.ts).
    const counted = countedReactions(follow).length;
    if (counted >= follow.maxFixCycles) {
      const what =
        request.kind === 'ci' ? `checks ${request.checks.join(', ')} failed on ${request.commit}` : `${request.comments.length} review comments wait`;
      const since = follow.countedFrom === undefined ? 'already' : 'since the last resume';
      return this.needsHuman(follow, run, `${counted} ${counted === 1 ? 'reaction' : 'reactions'} ${since} (max_fix_cycles ${follow.maxFixCycles}); ${what}`);
    }
    const refusal = this.#notOurs(follow, pr);
    if (refusal) return this.needsHuman(follow, run, refusal);
    // The run builds on svc's last head: when the pull request's head is another (a person pushed),
    // its push would be refused after the agent's work. Asked first instead: svc never fetches theirs.
    const ours = (await this.follows.deps.engine.find(follow.headRunId))?.headCommit;
    if (ours && ours !== pr.headCommit) {
      return this.needsHuman(
        follow,
        run,
        `the pull request's head ${pr.headCommit} is not svc's last push (${ours}, run ${follow.headRunId}): someone pushed to ${pr.branch}; no run was started`,
      );
    }
    const reaction: Reaction = {
      ...request,
      workflow: request.kind === 'ci' ? follow.onCiFailure : follow.onReview,
      followOnRunId: newId('run'),
      fromRunId: follow.headRunId,
      state: 'starting',
      replied: [],
      pushedCommit: null,
      error: null,
      startedAt: this.follows.now().toISOString(),
      finishedAt: null,
    };
    // The comments are handled from here on, whatever becomes of the run: each id once.
    const saved = await this.follows.save(follow, {
      reactions: [...follow.reactions, reaction],
      handledComments: [...follow.handledComments, ...request.comments],
    });
    return this.#start(saved, reaction, run);
  }

  /** Takes a reaction under way one step further; resolves to the follow as saved. */
  async advance(follow: PullFollow, reaction: Reaction, run: RunRecord, pr: PullSnapshot): Promise<PullFollow> {
    if (reaction.state === 'starting') return this.#start(follow, reaction, run);
    if (reaction.state === 'running') {
      const followOn = await this.follows.deps.engine.find(reaction.followOnRunId);
      // Paused at a gate, waiting, pending or running, or failed on a usage limit with its resume
      // appointment kept (SVC_AUTO_RESUME_ON_LIMIT): its outcome is still to come.
      if (followOn && stillToCome(followOn)) return follow;
      if (!followOn || followOn.status !== 'completed') {
        const how = followOn ? `${followOn.status}${followOn.error ? ` (${followOn.error})` : ''}` : 'deleted';
        return this.#fail(follow, reaction, run, `its follow-on run ${reaction.followOnRunId} ended ${how}`);
      }
      follow = await this.follows.save(follow, { reactions: replaced(follow, reaction, { state: 'pushing' }) });
      reaction = follow.reactions.find((r) => r.followOnRunId === reaction.followOnRunId)!;
    }
    if (reaction.state === 'pushing') return this.#push(follow, reaction, run, pr);
    return follow;
  }

  async needsHuman(follow: PullFollow, run: RunRecord, reason: string, patch: Partial<PullFollow> = {}): Promise<PullFollow> {
    const saved = await this.follows.save(follow, { ...patch, needsHuman: reason });
    await this.follows.emit(run, 'needs_human', { number: follow.number, reason });
    return saved;
  }

  async #start(follow: PullFollow, reaction: Reaction, run: RunRecord): Promise<PullFollow> {
    const { engine } = this.follows.deps;
    try {
      if (!(await engine.find(reaction.followOnRunId))) {
        await engine.start({
          workflow: reaction.workflow,
          message: reaction.message,
          fromRunId: reaction.fromRunId,
          workspaceId: follow.workspaceId,
          trigger: 'api',
          // Its message is what GitHub said (a log, a reviewer's words): values from outside, so its bash nodes run in the sandbox.
          outside: 'remote',
          runId: reaction.followOnRunId,
          // The original run's spend cap and permissions bound it too (the lower wins).
          ...(run.maxCostUsd ? { maxCostUsd: run.maxCostUsd } : {}),
          permissionsAtMost: originalPermissions(run),
        });
      }
    } catch (error) {
      return this.#fail(follow, reaction, run, `its follow-on run of ${reaction.workflow} could not start: ${(error as Error).message}`);
    }
    // Made: the run keeps the whole message; the follow keeps its start and its hash (a follow is
    // rewritten at every look, and five logs and thirty comments are a large record).
    const saved = await this.follows.save(follow, {
      reactions: replaced(follow, reaction, { state: 'running', ...keptMessage(reaction.message, reaction.followOnRunId) }),
    });
    await this.follows.emit(run, 'reaction_started', {
      number: follow.number,
      kind: reaction.kind,
      followOnRunId: reaction.followOnRunId,
      workflow: reaction.workflow,
      key: reaction.key,
    });
    return saved;
  }

  /** The follow-on run's branch to the pull request's (a fast-forward), then a reply on each comment it was given, each saved as it is made. */
  async #push(follow: PullFollow, reaction: Reaction, run: RunRecord, pr: PullSnapshot): Promise<PullFollow> {
    const { deps } = this.follows;
    const refusal = this.#notOurs(follow, pr);
    if (refusal) return this.#fail(follow, reaction, run, `the result of follow-on run ${reaction.followOnRunId} was not pushed: ${refusal}`);
    let commit: string;
    try {
      const site = await deps.workspaces.landingSite(reaction.followOnRunId);
      await pushBranch(site.environment.repository, 'origin', site.environment.branch, site.git, follow.branch);
      commit = (await deps.engine.find(reaction.followOnRunId))?.headCommit ?? '';
    } catch (error) {
      return this.#fail(
        follow,
        reaction,
        run,
        `the result of follow-on run ${reaction.followOnRunId} could not be pushed to ${follow.branch}: ${(error as Error).message}`,
      );
    }
    if (!commit || commit === reaction.commit) {
      return this.#fail(
        follow,
        reaction,
        run,
        `follow-on run ${reaction.followOnRunId} completed without a commit: ${follow.branch} is still at ${reaction.commit}`,
      );
    }
    // Replies say the pull request has the commit: only once GitHub says its head is it.
    const head =
      pr.headCommit === commit
        ? commit
        : await viewPull(this.follows.site, follow.number, follow.repo).then(
            (p) => p.headCommit,
            () => null,
          );
    if (head !== commit) {
      const tries = (reaction.confirmTries ?? 0) + 1;
      const why = `pushed ${commit} to ${follow.branch}, but the pull request's head is ${head ?? 'unknown (gh failed)'}`;
      if (tries >= MAX_CONFIRM_LOOKS) return this.#fail(follow, reaction, run, `${why} after ${tries} looks`);
      return this.follows.save(follow, { reactions: replaced(follow, reaction, { confirmTries: tries }), lastError: why });
    }
    // One reply per thread, on its first comment (records older than `threads`: each comment's).
    const given = (r: Reaction) => [...r.replied, ...(r.replyFailures ?? []).map((f) => f.commentId)];
    const toReply = (reaction.threads ?? reaction.comments).filter((id) => !given(reaction).includes(id));
    // svc's replies in the threads, read once before the first reply of this look: a reply posted just
    // before a stop, and not recorded, is there with its key, and is recorded now instead of posted twice.
    // A failed read is no reply's failure: every reply waits for the next look, no try counted, up
    // to MAX_THREAD_READS looks; then the replies are made without it.
    let posted = new Map<string, string>();
    if (toReply.length > 0) {
      try {
        posted = await svcReplies(this.follows.site, follow.repo, follow.number);
      } catch (error) {
        const reads = (reaction.threadReads ?? 0) + 1;
        const lastError = `reading the review threads before replying: ${(error as Error).message}`;
        if (reads < MAX_THREAD_READS) return this.follows.save(follow, { reactions: replaced(follow, reaction, { threadReads: reads }), lastError });
        reaction = { ...reaction, threadReads: reads };
      }
    }
    for (const commentId of toReply) {
      let replyId: string;
      try {
        replyId =
          posted.get(replyKey(reaction.followOnRunId, commentId)) ??
          (await replyToComment(this.follows.site, follow.repo, follow.number, commentId, replyBody(reaction.followOnRunId, commentId, commit)));
      } catch (error) {
        const message = (error as Error).message;
        const tries = (reaction.replyTries ?? 0) + 1;
        if (!REFUSED.test(message) && tries < MAX_REPLY_TRIES) {
          // Pushed already; this reply is tried again at the next look (the push again is a no-op).
          reaction = { ...reaction, replyTries: tries };
          return this.follows.save(follow, { reactions: replaced(follow, reaction, reaction), lastError: `replying on comment ${commentId}: ${message}` });
        }
        // Given up: a reply is a courtesy, never a reason to hold the pull request's next reaction.
        reaction = { ...reaction, replyTries: 0, replyFailures: [...(reaction.replyFailures ?? []), { commentId, error: cutText(message, 500) }] };
        follow = await this.follows.save(follow, { reactions: replaced(follow, reaction, reaction) });
        continue;
      }
      reaction = { ...reaction, replyTries: 0, replied: [...reaction.replied, commentId] };
      const ownComments = follow.ownComments.includes(replyId) ? follow.ownComments : [...follow.ownComments, replyId];
      follow = await this.follows.save(follow, { reactions: replaced(follow, reaction, reaction), ownComments });
    }
    const saved = await this.follows.save(follow, {
      headRunId: reaction.followOnRunId,
      reactions: replaced(follow, reaction, { state: 'pushed', pushedCommit: commit, finishedAt: this.follows.now().toISOString() }),
    });
    await this.follows.emit(run, 'reaction_finished', {
      number: follow.number,
      kind: reaction.kind,
      followOnRunId: reaction.followOnRunId,
      outcome: 'pushed',
      commit,
      ...(reaction.kind === 'review' ? { replies: reaction.replied.length } : {}),
      ...(reaction.replyFailures?.length ? { replyFailures: reaction.replyFailures.length } : {}),
    });
    return saved;
  }

  /** Why svc must not push to the pull request's head (a fork's branch, another branch than the run's), or null. */
  #notOurs(follow: PullFollow, pr: PullSnapshot): string | null {
    if (pr.crossRepository)
      return `the pull request's head is ${pr.crossRepository}:${pr.branch}, another repository: svc pushes only to its own ${follow.branch}`;
    if (pr.branch !== follow.branch) return `the pull request's head branch is ${pr.branch}, not svc's ${follow.branch}: svc pushes only to its own`;
    return null;
  }

  async #fail(follow: PullFollow, reaction: Reaction, run: RunRecord, reason: string): Promise<PullFollow> {
    const reactions = replaced(follow, reaction, { state: 'failed', error: reason, finishedAt: this.follows.now().toISOString() });
    await this.follows.emit(run, 'reaction_finished', { number: follow.number, kind: reaction.kind, followOnRunId: reaction.followOnRunId, outcome: 'failed' });
    return this.needsHuman(follow, run, reason, { reactions });
  }
}
