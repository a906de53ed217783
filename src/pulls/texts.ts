/**
 * What a reaction's follow-on run is told, and what svc replies on a review comment
 * (docs/decisions.md, "Pull request reactions"). The run's message is its whole input: the evidence
 * goes in it, not a link to it.
 */

import type { PullFollow, ReviewComment } from './records.js';

export interface CheckFailure {
  check: string;
  url: string | null;
  failingStep: string | null;
  excerpt: string | null;
  /** The excerpt is the log's end: no line looked like an error. */
  tail: boolean;
}

export function ciMessage(follow: Pick<PullFollow, 'number' | 'url' | 'branch'>, commit: string, failures: CheckFailure[], others: string[] = []): string {
  const parts = failures.map((f) =>
    [
      `Check: ${f.check}`,
      `URL: ${f.url ?? '(none given)'}`,
      `Failing step: ${f.failingStep ?? '(the log names no step)'}`,
      f.excerpt === null
        ? 'Log: none could be read (not a GitHub Actions job); open the URL.'
        : `${f.tail ? 'The end of the log (no line looked like an error)' : 'Log excerpt, from before the first error line'}:\n\`\`\`\n${f.excerpt}\n\`\`\``,
    ].join('\n'),
  );
  return [
    `CI failed on pull request #${follow.number} (${follow.url}), branch ${follow.branch}, commit ${commit}.`,
    `Fix the code so these checks pass; svc pushes your commits to the pull request's branch when you finish.`,
    '',
    parts.join('\n\n'),
    ...(others.length > 0 ? ['', `Also failed (their logs not included; open them on GitHub): ${others.join(', ')}`] : []),
  ].join('\n');
}

export function reviewMessage(follow: Pick<PullFollow, 'number' | 'url' | 'branch'>, commit: string, comments: ReviewComment[]): string {
  const items = comments.map(
    (c) => `- Comment ${c.id}${c.path ? ` on ${c.path}${c.line !== null ? `:${c.line}` : ''}` : ''}${c.author ? ` by ${c.author}` : ''}:\n${indent(c.body)}`,
  );
  return [
    `A review of pull request #${follow.number} (${follow.url}), branch ${follow.branch} at ${commit}, asked for changes.`,
    `Address every comment below; svc pushes your commits to the pull request's branch and replies on each comment when you finish.`,
    '',
    items.join('\n'),
  ].join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

/**
 * svc's reply on a comment its follow-on run was given. Its marker line, `<!-- svc:reply
 * <reaction>:<comment> -->` (the reaction named by its follow-on run's id, the comment by the id of
 * its thread's first), tells svc's replies apart in any thread — never taken for a new comment,
 * whoever GitHub shows as their author — and says which reply it is: one posted just before a stop,
 * not yet recorded, is found in its thread rather than posted twice. Replies older than the key
 * carry the marker alone (`<!-- svc:reply -->`); they are still svc's.
 */
export const REPLY_MARKER = '<!-- svc:reply';
export const replyKey = (followOnRunId: string, commentId: string) => `${followOnRunId}:${commentId}`;
export const replyBody = (followOnRunId: string, commentId: string, commit: string) =>
  `Addressed in ${commit} by svc run ${followOnRunId} (pushed to this pull request's branch).\n${REPLY_MARKER} ${replyKey(followOnRunId, commentId)} -->`;

/** The replies a comment's body says it is (their keys): svc's marker lines in it. */
export const replyKeysOf = (body: string): string[] => [...body.matchAll(/<!-- svc:reply ([A-Za-z0-9_]+:\d+) -->/g)].map((match) => match[1]!);
