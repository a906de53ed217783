/**
 * A followed pull request's shapes (docs/decisions.md, "Pull request reactions"), once: the zod
 * schemas give the TypeScript types, the run detail's `pr` and the API's response schemas.
 */

import * as z from 'zod';

/** A check as svc counts it: still running, passed, failed, or one that says nothing either way. */
export const CHECK_STATES = ['pending', 'success', 'failure', 'cancelled', 'skipped', 'neutral'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

export const PULL_STATES = ['open', 'merged', 'closed'] as const;
export type PullState = (typeof PULL_STATES)[number];

export const PullCheckSchema = z.object({
  name: z.string(),
  state: z.enum(CHECK_STATES),
  url: z.string().nullable().describe("the check's page (a GitHub Actions job's, for a failed job's log)"),
  /** A failure of the CI, not the code (quota, billing, …): the words that said so; reported, never sent to an agent. */
  infrastructure: z
    .string()
    .optional()
    .describe('a failure of the CI itself (quota, billing, rate limit, infrastructure): the line that said so; no run was started for it'),
  pendingSince: z
    .string()
    .optional()
    .describe(
      'running (IN_PROGRESS; a queued, expected or waiting check has none): since when, as svc saw it pending and running on this head commit; past SVC_PR_CHECK_STUCK_MS the check is stuck and a person is asked',
    ),
});
export type PullCheck = z.infer<typeof PullCheckSchema>;

export const REACTION_KINDS = ['ci', 'review'] as const;
export type ReactionKind = (typeof REACTION_KINDS)[number];

/**
 * A reaction's steps, each saved before the next: `starting` (its follow-on run's id chosen and
 * saved, the run maybe not made yet), `running` (made), `pushing` (completed; its result goes to
 * the pull request's branch, then the replies), `pushed` or `failed`.
 */
export const REACTION_STATES = ['starting', 'running', 'pushing', 'pushed', 'failed'] as const;
export type ReactionState = (typeof REACTION_STATES)[number];

export const ReviewCommentSchema = z.object({
  id: z.string(),
  /** The id of its thread's first comment: GitHub takes replies there only. */
  thread: z.string(),
  path: z.string().nullable(),
  line: z.number().int().nullable(),
  author: z.string().nullable(),
  body: z.string(),
});
export type ReviewComment = z.infer<typeof ReviewCommentSchema>;

export const ReactionSchema = z.object({
  key: z.string().describe('what it answers, counted once: `ci:<head commit>:<checks>` or `review:<comment ids>`'),
  kind: z.enum(REACTION_KINDS),
  commit: z.string().describe('the head commit it answers'),
  checks: z.array(z.string()).describe('ci: the failed checks it was told of'),
  comments: z.array(z.string()).describe('review: the ids of the comments it was given'),
  workflow: z.string(),
  followOnRunId: z.string().describe('its follow-on run (chosen before the run is made: a restart starts the same run, never a second)'),
  fromRunId: z.string().describe('the run it follows on from: the one whose head the branch had'),
  message: z.string().describe("the follow-on run's message; once its run is made, its first 1000 characters (the run has the whole)"),
  messageSha256: z.string().optional().describe("the whole message's SHA-256, when `message` was cut"),
  state: z.enum(REACTION_STATES),
  threads: z
    .array(z.string())
    .optional()
    .describe("review: the first comment of each thread its comments are in, replied to once each (absent in records older than it: the comments')"),
  replied: z.array(z.string()).describe('review: the comments replied to so far'),
  replyFailures: z
    .array(z.object({ commentId: z.string(), error: z.string() }))
    .optional()
    .describe('review: the replies GitHub refused (a 4xx) or that failed every try: not tried again; the reaction finished without them'),
  confirmTries: z.number().int().optional().describe("pushing: the looks after the push whose pull request's head was not the pushed commit yet"),
  replyTries: z.number().int().optional().describe('review: the failed tries of the reply being made'),
  threadReads: z
    .number()
    .int()
    .optional()
    .describe('review: the looks whose read of the review threads, before replying, failed (past MAX_THREAD_READS svc replies without it)'),
  pushedCommit: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type Reaction = z.infer<typeof ReactionSchema>;

/** One followed pull request: the run whose branch it proposes, and everything svc decided about it. */
export const PullFollowSchema = z.object({
  runId: z.string(),
  workspaceId: z.string(),
  number: z.number().int(),
  url: z.string(),
  /** `owner/name`, or `host/owner/name` off github.com: gh's `--repo`. */
  repo: z.string(),
  branch: z.string().describe('the head branch, `svc/<runId>`'),
  headRunId: z.string().describe("the run whose head the branch has now: the run itself, then each reaction's run that pushed"),
  state: z.enum(PULL_STATES),
  headCommit: z.string().nullable(),
  checks: z.array(PullCheckSchema),
  reactions: z.array(ReactionSchema),
  /** Review comment ids given to a reaction (each once), and the replies svc posted itself (never taken for new comments). */
  handledComments: z.array(z.string()),
  ownComments: z.array(z.string()),
  /** `<commit>:<check>` of infrastructure failures already reported. */
  reported: z.array(z.string()),
  /** The original workflow's `on_ci_failure`, `on_review`, `max_fix_cycles`, read as it was followed. */
  onCiFailure: z.string(),
  onReview: z.string(),
  maxFixCycles: z.number().int(),
  countedFrom: z
    .number()
    .int()
    .optional()
    .describe('a person resumed it: the reactions before this index count no more towards max_fix_cycles (resume.ts); absent, all count'),
  needsHuman: z.string().nullable().describe('why nothing more starts by itself'),
  cleanup: z.array(z.object({ runId: z.string(), removed: z.boolean(), reason: z.string().optional() })).nullable(),
  /** Whether it is still looked at: open, or merged/closed and not cleaned up yet. */
  active: z.boolean(),
  nextLookAt: z.string(),
  lastError: z.string().nullable().describe('the last look that failed (gh unavailable, …); looked at again at the next interval'),
  followedAt: z.string(),
  updatedAt: z.string(),
});
export type PullFollow = z.infer<typeof PullFollowSchema>;

/** The run detail's `pr`: what the run's page and `svc runs show` print. */
export const PullViewSchema = z.object({
  number: z.number().int(),
  url: z.string(),
  state: z.enum(PULL_STATES),
  headCommit: z.string().nullable(),
  checks: z.array(PullCheckSchema),
  reactions: z.array(
    z.object({
      kind: z.enum(REACTION_KINDS),
      key: z.string(),
      checks: z.array(z.string()),
      comments: z.array(z.string()),
      followOnRunId: z.string(),
      workflow: z.string(),
      state: z.enum(REACTION_STATES),
      outcome: z.enum(['pushed', 'failed']).nullable(),
      error: z.string().nullable(),
      replyFailures: ReactionSchema.shape.replyFailures,
      startedAt: z.string(),
      finishedAt: z.string().nullable(),
    }),
  ),
  maxFixCycles: z.number().int(),
  countedFrom: PullFollowSchema.shape.countedFrom,
  cleanup: PullFollowSchema.shape.cleanup,
  lastError: z.string().nullable(),
});
export type PullView = z.infer<typeof PullViewSchema>;

export function toPullView(follow: PullFollow): PullView {
  return {
    number: follow.number,
    url: follow.url,
    state: follow.state,
    headCommit: follow.headCommit,
    checks: follow.checks,
    reactions: follow.reactions.map((r) => ({
      kind: r.kind,
      key: r.key,
      checks: r.checks,
      comments: r.comments,
      followOnRunId: r.followOnRunId,
      workflow: r.workflow,
      state: r.state,
      outcome: r.state === 'pushed' || r.state === 'failed' ? r.state : null,
      error: r.error,
      ...(r.replyFailures?.length ? { replyFailures: r.replyFailures } : {}),
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    })),
    maxFixCycles: follow.maxFixCycles,
    ...(follow.countedFrom !== undefined ? { countedFrom: follow.countedFrom } : {}),
    cleanup: follow.cleanup,
    lastError: follow.lastError,
  };
}
