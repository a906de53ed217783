/**
 * What svc keeps of a failed job's log (docs/decisions.md, "Pull request reactions"): an excerpt
 * around the first line that looks like an error, not the log's tail — a CI log ends with a summary
 * and clean-up far below the failure — and whether the failure is the CI's own (a quota, billing, a
 * rate limit, the infrastructure), which is reported and never sent to an agent.
 */

import { cleanText, cutText } from './clean-text.js';

/** Lines kept before the first error line, and from it on: enough for a stack or an assertion's diff. */
export const EXCERPT_BEFORE = 20;
export const EXCERPT_AFTER = 40;
/** A line longer is cut (a minified bundle on one line says nothing more past this). */
export const EXCERPT_LINE_CHARS = 400;
/** The excerpt's bound in characters, whatever its lines: it goes into a run's message. */
export const EXCERPT_MAX_CHARS = 12 * 1024;

/**
 * A line that looks like an error: GitHub's `##[error]` annotation, `Error`/`error:` as a word,
 * the ✗/✖/× marks of test runners, `FAIL`/`FAILED` in capitals, npm's `ERR!`, a Python traceback,
 * a Go panic.
 */
const ERROR_LINE = /##\[error\]|\bError\b|\berror:|✗|✖|\bFAIL(ED)?\b|npm ERR!|Traceback \(most recent call last\)|^panic:/;

/**
 * A failure of the CI, not of the code: GitHub's runner says so on an `##[error]` line, in its own
 * words — the job not started (billing, spending limit), the time limit, a runner shut down or lost.
 * Only those lines, only those phrases: a test whose path names billing or infrastructure, an
 * assertion about a rate limit, or anything the code under test prints about a quota is the code's
 * failure, and the words of a log line would otherwise let the pull request switch reactions off.
 */
const RUNNER_LINE = /^##\[error\]/;
const INFRASTRUCTURE_PHRASE =
  /The job was not started because|exceeded the maximum execution time|The runner has received a shutdown signal|lost communication with the server|You have exceeded your spending limit|spending limit needs to be increased|recent account payments have failed|account is locked due to a billing issue/i;

/** Whether `text`, one line of a job's log, is GitHub's runner saying the CI failed, not the code. */
export const isInfrastructureLine = (text: string): boolean => RUNNER_LINE.test(text.trim()) && INFRASTRUCTURE_PHRASE.test(text);

export interface LogExcerpt {
  /** The step the first error line is in (the log's second column), when the log names steps. */
  failingStep: string | null;
  excerpt: string;
  /** The error line was found; false: the excerpt is the log's end, for want of one. */
  found: boolean;
  /** The line that makes it the CI's failure, when one does. */
  infrastructure: string | null;
}

interface LogLine {
  job: string | null;
  step: string | null;
  text: string;
}

/** `gh run view --log-failed` prints `<job>\t<step>\t<time> <text>`; anything else is taken as text. */
function parseLine(raw: string): LogLine {
  const parts = cleanText(raw).split('\t');
  if (parts.length < 3) return { job: null, step: null, text: raw };
  const text = parts
    .slice(2)
    .join('\t')
    .replace(/^\uFEFF?\d{4}-\d\d-\d\dT[\d:.]+Z ?/, '');
  return { job: parts[0]!, step: parts[1]!, text };
}

const cut = (text: string) => (text.length > EXCERPT_LINE_CHARS ? `${cutText(text, EXCERPT_LINE_CHARS)}…` : text);

/** The excerpt of `check`'s part of a failed run's log (the lines of its job, when the log names jobs). */
export function excerptOf(log: string, check: string): LogExcerpt {
  const all = log
    .split(/\r?\n/)
    .filter((line) => line.length > 0)
    .map(parseLine);
  const ofJob = all.filter((line) => line.job === check);
  const lines = ofJob.length > 0 ? ofJob : all;
  const infrastructure = lines.find((line) => isInfrastructureLine(line.text))?.text.trim() ?? null;
  const at = lines.findIndex((line) => ERROR_LINE.test(line.text));
  const found = at >= 0;
  const from = found ? Math.max(0, at - EXCERPT_BEFORE) : Math.max(0, lines.length - EXCERPT_BEFORE - EXCERPT_AFTER);
  const to = found ? Math.min(lines.length, at + EXCERPT_AFTER) : lines.length;
  let excerpt = lines
    .slice(from, to)
    .map((line) => cut(line.text))
    .join('\n');
  if (excerpt.length > EXCERPT_MAX_CHARS) excerpt = `${cutText(excerpt, EXCERPT_MAX_CHARS)}\n… (cut at ${EXCERPT_MAX_CHARS} characters)`;
  const stepLine = found ? lines[at] : lines.at(-1);
  return { failingStep: stepLine?.step ?? null, excerpt, found, infrastructure: infrastructure && cut(infrastructure) };
}
