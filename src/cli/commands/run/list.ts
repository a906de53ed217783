import { ApiResponseError } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson, printTable } from '../../output.js';
import { formatCost, formatMs } from './_outcome.js';

/** The API checks the filters (one rule for both front ends); a bad flag is still a usage error here. */
function asUsageError(error: unknown): unknown {
  if (error instanceof ApiResponseError && (error.error === 'invalid_since' || error.error === 'invalid_until')) return new UsageError(error.message);
  if (!(error instanceof ApiResponseError) || error.error !== 'invalid_request') return error;
  const [issue] = error.issues;
  if (issue?.path === 'limit') return new UsageError('--limit takes a whole number from 1 to 200');
  return new UsageError(issue?.message ?? error.message);
}

/** `svc runs [list]`: newest first; a table on a TTY, tab-separated lines when piped. */
export default defineCommand({
  options: {
    status: ['-s, --status <states>', 'comma-separated: pending, running, paused, waiting, completed, failed, cancelled, abandoned'],
    workflow: ['--workflow <name>', 'only runs of this workflow'],
    definitionHash: ['--definition-hash <hash>', 'only runs of this version of their workflow (the hash `svc runs show` prints)'],
    since: ['--since <when>', 'runs created since: 24h, 7d, 2w or an ISO date'],
    until: ['--until <when>', 'runs created until: 24h, 7d, 2w (ago) or an ISO date'],
    limit: ['-L, --limit <n>', 'at most this many (1-200, default 50)'],
  },
  run: async (cmd, _args, options) => {
    const result = await cmd
      .client()
      .runs.list({
        status: options.status,
        workflow: options.workflow,
        definitionHash: options.definitionHash,
        since: options.since,
        until: options.until,
        limit: options.limit ?? 50,
      })
      .catch((error: unknown) => {
        throw asUsageError(error);
      });
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (result.runs.length === 0) {
      if (cmd.io.isStdoutTTY) cmd.io.err('No runs.\n');
      return;
    }
    await printTable(
      cmd.io,
      ['ID', 'WORKFLOW', 'STATUS', 'TRIGGER', 'CREATED', 'DURATION', 'COST'],
      result.runs.map((run) => [
        run.id,
        run.workflow,
        run.status,
        run.trigger,
        run.createdAt,
        run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '',
        run.costUsd === null ? '' : formatCost(run.costUsd),
      ]),
    );
    if (cmd.io.isStdoutTTY && result.total > result.runs.length) cmd.io.err(`(${result.runs.length} of ${result.total}; use --limit)\n`);
  },
});
