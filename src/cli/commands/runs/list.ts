import type { RunView } from '../../../engine/run-view.js';
import { toRunView } from '../../../engine/run-view.js';
import { RUN_STATUSES, type RunStatus } from '../../../engine/types.js';
import { viaServerOrStore } from '../../command-context.js';
import { UsageError } from '../../exit-codes.js';
import { printJson, printTable } from '../../output.js';
import type { CommandRun } from '../../program.js';
import { formatCost, formatMs } from '../../runs/outcome.js';

interface ListOptions {
  status?: string;
  workflow?: string;
  limit?: string;
}

const list: CommandRun = async (cmd, _args, options) => {
  const opts = options as ListOptions;
  const statuses = opts.status
    ? opts.status
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  const unknown = statuses.filter((s) => !(RUN_STATUSES as readonly string[]).includes(s));
  if (unknown.length) throw new UsageError(`unknown status ${unknown.join(', ')}; use ${RUN_STATUSES.join(', ')}`);
  const limit = opts.limit === undefined ? 50 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new UsageError('--limit takes a whole number from 1 to 200');
  const query = new URLSearchParams({ limit: String(limit) });
  if (statuses.length) query.set('status', statuses.join(','));
  if (opts.workflow) query.set('workflow', opts.workflow);

  const result = await viaServerOrStore<{ runs: RunView[]; total: number }>(cmd, {
    online: (client) => client.request('GET', `/api/workflows/runs?${query}`),
    offline: async (ctx) => {
      const found = ctx.engine.list({ status: statuses as RunStatus[], workflow: opts.workflow, limit });
      return { runs: found.runs.map((run) => toRunView(run)), total: found.total };
    },
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
};

export default list;
