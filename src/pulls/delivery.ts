/**
 * What a GitHub webhook delivery says about pull requests (docs/decisions.md, "Pull request
 * reactions"): which pull requests (repository and number) or head branches it concerns. Only that
 * is read, with a schema — the delivery is a hint to look now, never a source of truth: the look
 * itself asks gh, so a forged or stale payload can make svc look, never decide.
 */

import * as z from 'zod';
import { pullOfUrl } from './github.js';

/** The events that make svc look at a pull request now. */
export const GITHUB_EVENTS = ['check_suite', 'check_run', 'pull_request', 'pull_request_review', 'pull_request_review_comment'] as const;

const Repository = z.object({ html_url: z.string() }).loose();
const PullNumbers = z.array(z.object({ number: z.number().int().positive() }).loose()).max(100);

const PullRequestDelivery = z.object({ pull_request: z.object({ html_url: z.string(), head: z.object({ ref: z.string() }).loose() }).loose() }).loose();
const CheckSuiteDelivery = z
  .object({ repository: Repository, check_suite: z.object({ head_branch: z.string().nullish(), pull_requests: PullNumbers.optional() }).loose() })
  .loose();
const CheckRunDelivery = z
  .object({
    repository: Repository,
    check_run: z.object({ check_suite: z.object({ head_branch: z.string().nullish() }).loose().optional(), pull_requests: PullNumbers.optional() }).loose(),
  })
  .loose();

export type DeliveryRef = { repo: string; number: number } | { branch: string };

/** `owner/name` of a repository's page, as pull request URLs give it (`host/owner/name` off github.com). */
function repoOf(htmlUrl: string): string | undefined {
  return pullOfUrl(`${htmlUrl.replace(/\/$/, '')}/pull/1`)?.repo;
}

/** The pull requests and branches a delivery of `event` names; [] for another event or a payload without them. */
export function githubDeliveryRefs(event: string, payload: unknown): DeliveryRef[] {
  if (event === 'pull_request' || event === 'pull_request_review' || event === 'pull_request_review_comment') {
    const parsed = PullRequestDelivery.safeParse(payload);
    if (!parsed.success) return [];
    const pull = pullOfUrl(parsed.data.pull_request.html_url);
    return [...(pull ? [pull] : []), { branch: parsed.data.pull_request.head.ref }];
  }
  let repoUrl: string;
  let branch: string | null | undefined;
  let numbers: Array<{ number: number }>;
  if (event === 'check_suite') {
    const parsed = CheckSuiteDelivery.safeParse(payload);
    if (!parsed.success) return [];
    ({ head_branch: branch, pull_requests: numbers = [] } = parsed.data.check_suite);
    repoUrl = parsed.data.repository.html_url;
  } else if (event === 'check_run') {
    const parsed = CheckRunDelivery.safeParse(payload);
    if (!parsed.success) return [];
    branch = parsed.data.check_run.check_suite?.head_branch;
    numbers = parsed.data.check_run.pull_requests ?? [];
    repoUrl = parsed.data.repository.html_url;
  } else {
    return [];
  }
  const repo = repoOf(repoUrl);
  return [...(repo ? numbers.map((p) => ({ repo, number: p.number })) : []), ...(branch ? [{ branch }] : [])];
}
