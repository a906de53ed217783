/**
 * What svc asks GitHub about a followed pull request, through the GitHub CLI (docs/decisions.md,
 * "Pull request reactions"). Every answer gh prints is hostile input: parsed here with a schema,
 * never with gh's `--jq`, and anything else is a `GitHubAnswerError` saying what was wrong.
 *
 * - the pull request: `gh pr view <n> --repo <repo> --json <PULL_FIELDS>`
 * - the unresolved review comments: `gh api graphql` on the pull request's `reviewThreads` (only
 *   GraphQL says whether a thread is resolved; the REST comments do not), the first 100 threads and
 *   the first 100 comments of each
 * - a failed job's log: `gh run view <run id> --repo <repo> --log-failed`
 * - a reply: `gh api --method POST repos/<owner>/<name>/pulls/<n>/comments/<id>/replies -f body=…`
 */

import * as z from 'zod';
import { ghFailure, runGh } from '../landing/index.js';
import type { WorktreeGit } from '../workspaces/index.js';
import { cleanText, cutText } from './clean-text.js';
import type { CheckState, PullState, ReviewComment } from './records.js';
import { REPLY_MARKER, replyKeysOf } from './texts.js';

export class GitHubAnswerError extends Error {}

/** Where gh runs and who it is. */
export interface GhSite {
  ghBin: string;
  /** A directory of the repository (gh finds the repository from its remote when no `--repo` is given). */
  cwd: string;
  git: WorktreeGit;
  /** Aborted when the server closes: gh is stopped rather than waited for (up to its 5-minute limit). */
  signal?: AbortSignal;
}

const CheckRunSchema = z.object({
  __typename: z.literal('CheckRun'),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullish(),
  detailsUrl: z.string().nullish(),
});
const StatusContextSchema = z.object({
  __typename: z.literal('StatusContext'),
  context: z.string(),
  state: z.string(),
  targetUrl: z.string().nullish(),
});
const PullViewAnswer = z.object({
  number: z.number().int().positive(),
  url: z.string().url(),
  state: z.enum(['OPEN', 'CLOSED', 'MERGED']),
  headRefName: z.string(),
  headRefOid: z.string().regex(/^[0-9a-f]{7,64}$/),
  isCrossRepository: z.boolean(),
  // Null when the head repository was deleted.
  headRepository: z.object({ name: z.string() }).nullish(),
  headRepositoryOwner: z.object({ login: z.string() }).nullish(),
  reviewDecision: z.string().nullish(),
  statusCheckRollup: z.array(z.union([CheckRunSchema, StatusContextSchema])).nullish(),
});

export const PULL_FIELDS = 'number,url,state,headRefName,headRefOid,isCrossRepository,headRepository,headRepositoryOwner,reviewDecision,statusCheckRollup';

export interface PullSnapshot {
  number: number;
  url: string;
  state: PullState;
  branch: string;
  headCommit: string;
  /** The head branch is in another repository (a fork): `owner/name`, or null when it is the pull request's own. */
  crossRepository: string | null;
  /** `running`: a pending check that started (IN_PROGRESS); one queued, expected or waiting may never start. */
  checks: Array<{ name: string; state: CheckState; url: string | null; running?: boolean }>;
  changesRequested: boolean;
}

/** A check run's conclusion, or a commit status's state, as svc counts it. */
function checkState(status: string, conclusion: string | null | undefined): CheckState {
  if (status !== 'COMPLETED' && !conclusion) return 'pending';
  switch (conclusion ?? status) {
    case 'SUCCESS':
      return 'success';
    case 'FAILURE':
    case 'TIMED_OUT':
    case 'STARTUP_FAILURE':
    case 'ERROR':
      return 'failure';
    case 'CANCELLED':
      return 'cancelled';
    case 'SKIPPED':
      return 'skipped';
    // Waits for a person (an approval, a first-time contributor's workflow): no code failed, no run is asked for.
    case 'ACTION_REQUIRED':
      return 'neutral';
    case 'PENDING':
    case 'EXPECTED':
    case 'QUEUED':
    case 'IN_PROGRESS':
      return 'pending';
    default:
      return 'neutral';
  }
}

function parseJson<T>(what: string, text: string, schema: z.ZodType<T>): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GitHubAnswerError(`${what}: gh printed no JSON (${text.trim().slice(0, 200) || 'nothing'})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GitHubAnswerError(`${what}: gh's answer is not as expected at ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  return parsed.data;
}

async function gh(site: GhSite, args: string[], what: string): Promise<string> {
  const result = await runGh(site.ghBin, args, {
    cwd: site.cwd,
    git: site.git,
    why: 'follow a pull request',
    ...(site.signal ? { signal: site.signal } : {}),
  });
  if (result.code !== 0) throw new GitHubAnswerError(ghFailure(`gh ${args.slice(0, 2).join(' ')} (${what})`, result));
  return result.stdout;
}

/** `owner/name` of a pull request's URL (`host/owner/name` off github.com), its number; undefined for what is no pull request URL. */
export function pullOfUrl(url: string): { repo: string; number: number } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const match = /^\/([^/]+)\/([^/]+)\/pull\/(\d+)\/?$/.exec(parsed.pathname);
  if (!match || !/^https?:$/.test(parsed.protocol)) return undefined;
  const host = parsed.host === 'github.com' ? '' : `${parsed.host}/`;
  return { repo: `${host}${match[1]}/${match[2]}`, number: Number(match[3]) };
}

/** The pull request `ref` (a number, or a head branch) of `repo` (none: the repository of `site.cwd`). */
export async function viewPull(site: GhSite, ref: number | string, repo?: string): Promise<PullSnapshot> {
  const args = ['pr', 'view', String(ref), ...(repo ? ['--repo', repo] : []), '--json', PULL_FIELDS];
  const answer = parseJson(`the pull request ${ref}`, await gh(site, args, `pull request ${ref}`), PullViewAnswer);
  return {
    number: answer.number,
    url: answer.url,
    state: answer.state === 'OPEN' ? 'open' : answer.state === 'MERGED' ? 'merged' : 'closed',
    branch: cleanText(answer.headRefName),
    headCommit: answer.headRefOid,
    crossRepository: answer.isCrossRepository ? `${answer.headRepositoryOwner?.login ?? '(deleted)'}/${answer.headRepository?.name ?? '(deleted)'}` : null,
    // A check's name and page are anyone's words (a workflow's job name is the repository's): cleaned
    // here, so what is compared with the follow, told to a run and put in an event is what is kept.
    checks: (answer.statusCheckRollup ?? []).map((check) =>
      check.__typename === 'CheckRun'
        ? {
            name: cleanText(check.name),
            state: checkState(check.status, check.conclusion),
            url: check.detailsUrl ? cleanText(check.detailsUrl) : null,
            ...(check.status === 'IN_PROGRESS' ? { running: true } : {}),
          }
        : {
            name: cleanText(check.context),
            state: checkState(check.state, check.state === 'PENDING' ? null : check.state),
            url: check.targetUrl ? cleanText(check.targetUrl) : null,
          },
    ),
    changesRequested: answer.reviewDecision === 'CHANGES_REQUESTED',
  };
}

const THREADS_QUERY = `query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) { reviewThreads(first: 100) { nodes {
    isResolved
    comments(first: 100) { nodes { fullDatabaseId path line originalLine body authorAssociation viewerDidAuthor author { __typename login } } }
  } } } }
}`;

/** A GitHub id as svc keeps it: digits, never a JS number (ids past 2^53 would be rounded). */
const DIGITS = z.string().regex(/^\d{1,30}$/);

const ThreadsAnswer = z.object({
  data: z.object({
    repository: z.object({
      pullRequest: z.object({
        reviewThreads: z.object({
          nodes: z.array(
            z.object({
              isResolved: z.boolean(),
              comments: z.object({
                nodes: z.array(
                  z.object({
                    // \`fullDatabaseId\` (a BigInt, printed as a string): \`databaseId\` is a 32-bit Int and review
                    // comment ids on github.com are past 2^31, so it fails or is null there.
                    fullDatabaseId: DIGITS,
                    path: z.string().nullish(),
                    line: z.number().int().nullish(),
                    originalLine: z.number().int().nullish(),
                    body: z.string(),
                    authorAssociation: z.string(),
                    // Written by svc's own gh user: only such a comment's reply marker is svc's.
                    viewerDidAuthor: z.boolean(),
                    author: z.object({ login: z.string(), __typename: z.string().optional() }).nullish(),
                  }),
                ),
              }),
            }),
          ),
        }),
      }),
    }),
  }),
});

/** `repo`'s parts for the API: gh's `--hostname` off github.com, the owner and the name. */
function repoParts(repo: string): { host: string[]; owner: string; name: string } {
  const parts = repo.split('/');
  const [owner, name] = parts.slice(-2) as [string, string];
  return { host: parts.length === 3 ? ['--hostname', parts[0]!] : [], owner, name };
}

/** A comment's body kept, in characters: a review comment longer than this is pasted output, not a request. */
export const COMMENT_BODY_MAX = 4000;
const boundedBody = (body: string) =>
  body.length > COMMENT_BODY_MAX ? `${cutText(body, COMMENT_BODY_MAX)}\n… (cut at ${COMMENT_BODY_MAX} characters; the whole comment is on GitHub)` : body;

/**
 * Whose review comments become a follow-on run's instructions: people with write access to the
 * repository. Anyone can comment on a public repository's pull request, and the comment is handed
 * to an agent that pushes; a contributor's, a stranger's or a bot's words are left to a person.
 */
export const TRUSTED_ASSOCIATIONS: readonly string[] = ['OWNER', 'MEMBER', 'COLLABORATOR'];

/**
 * The comments of the pull request's unresolved review threads, in thread order, from trusted
 * authors only (TRUSTED_ASSOCIATIONS, not a bot), never svc's own replies (written by svc's gh user
 * and carrying its marker: one not recorded yet in `ownComments`); each with its thread's first
 * comment, the only one GitHub takes replies on.
 */
export async function unresolvedComments(site: GhSite, repo: string, number: number): Promise<ReviewComment[]> {
  return (await reviewThreads(site, repo, number))
    .filter((thread) => !thread.isResolved)
    .flatMap((thread) => {
      const root = thread.comments.nodes[0]?.fullDatabaseId;
      return thread.comments.nodes
        .filter((c) => c.author && c.author.__typename !== 'Bot' && TRUSTED_ASSOCIATIONS.includes(c.authorAssociation))
        .filter((c) => !(c.viewerDidAuthor && c.body.includes(REPLY_MARKER)))
        .map((c) => ({
          id: c.fullDatabaseId,
          thread: root!,
          path: c.path === null || c.path === undefined ? null : cleanText(c.path),
          line: c.line ?? c.originalLine ?? null,
          author: c.author?.login ? cleanText(c.author.login) : null,
          body: boundedBody(cleanText(c.body)),
        }));
    });
}

/** The pull request's review threads, resolved or not, as GraphQL answers them (the first 100, their first 100 comments each). */
async function reviewThreads(site: GhSite, repo: string, number: number) {
  const { host, owner, name } = repoParts(repo);
  const args = ['api', 'graphql', ...host, '-f', `query=${THREADS_QUERY}`, '-F', `owner=${owner}`, '-F', `name=${name}`, '-F', `number=${number}`];
  return parseJson('the review threads', await gh(site, args, 'review threads'), ThreadsAnswer).data.repository.pullRequest.reviewThreads.nodes;
}

/**
 * svc's replies in the pull request's review threads, resolved or not: the comments svc's own gh
 * user wrote (`viewerDidAuthor`), each reply's key as its marker says it (texts.ts, `replyKeysOf`),
 * with its id. Anyone else's comment carrying a marker is not svc's: taken for one, it would stop
 * svc's reply being posted.
 */
export async function svcReplies(site: GhSite, repo: string, number: number): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const thread of await reviewThreads(site, repo, number)) {
    for (const comment of thread.comments.nodes) {
      if (!comment.viewerDidAuthor) continue;
      for (const key of replyKeysOf(comment.body)) found.set(key, comment.fullDatabaseId);
    }
  }
  return found;
}

/**
 * The failed log of a GitHub Actions job when its id is known (that job's lines only: a run of many
 * jobs prints megabytes), else of the run's failed jobs: lines `<job>\t<step>\t<time> <text>`.
 */
export function failedLog(site: GhSite, repo: string, actions: { runId: string; jobId: string | null }): Promise<string> {
  const job = actions.jobId ? ['--job', actions.jobId] : [];
  return gh(site, ['run', 'view', actions.runId, ...job, '--repo', repo, '--log-failed'], `the log of run ${actions.runId}`);
}

/** Replies on a review comment; resolves to the reply's id (svc's own, never taken for a new comment). */
export async function replyToComment(site: GhSite, repo: string, number: number, commentId: string, body: string): Promise<string> {
  if (!/^\d+$/.test(commentId)) throw new GitHubAnswerError(`the comment id ${JSON.stringify(commentId)} is not a GitHub id`);
  const { host, owner, name } = repoParts(repo);
  const path = `repos/${owner}/${name}/pulls/${number}/comments/${commentId}/replies`;
  const answer = parseJson(
    'the reply',
    await gh(site, ['api', ...host, '--method', 'POST', path, '-f', `body=${body}`], 'a reply'),
    // REST prints the id as a JSON number; kept as its digits (a safe integer, or refused).
    z.object({ id: z.union([z.number().int().nonnegative().refine(Number.isSafeInteger, 'an id past 2^53'), DIGITS]) }),
  );
  return String(answer.id);
}

/** The GitHub Actions run and job of a check's page (`…/actions/runs/<run>/job/<job>`), when it is one. */
export function actionsRunOf(url: string | null): { runId: string; jobId: string | null } | undefined {
  const match = url ? /\/actions\/runs\/(\d+)(?:\/job\/(\d+))?/.exec(url) : null;
  return match ? { runId: match[1]!, jobId: match[2] ?? null } : undefined;
}
