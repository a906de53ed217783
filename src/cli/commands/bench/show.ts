import { defineCommand } from '../../define-command.js';
import { formatSize } from '../../../shared/size.js';
import { printJson, printTable, styler } from '../../output.js';
import { formatCost, formatMs } from '../run/_outcome.js';
import { asUsageError, bar } from './_format.js';
import { printVersions } from './_versions.js';

/**
 * `svc bench <workflow> [--by-version]`: the summary line, then each node's p50, p95, runs, cost and peak memory; on a TTY a
 * bar of each node's p50, the slowest in red, so the slow node is seen before it is read.
 */
export default defineCommand({
  args: [['<workflow>', 'workflow name']],
  options: {
    since: ['--since <when>', 'only runs that ended since: 24h, 7d, 2w or an ISO date (default: all history)'],
    limit: ['-L, --limit <n>', 'the newest n completed or failed runs (1-200, default 20)'],
    byVersion: ['--by-version', "the same runs per version of the workflow, each version's p50, cost and nodes' peak memory against the one before"],
  },
  run: async (cmd, [workflow], options) => {
    const query = { workflow, since: options.since, limit: options.limit };
    const usage = (error: unknown) => {
      throw asUsageError(error);
    };
    if (options.byVersion) {
      const versions = await cmd.client().bench.versions(query).catch(usage);
      return cmd.globals.json ? printJson(cmd.io, versions) : printVersions(cmd, workflow, versions, options.since);
    }
    const result = await cmd.client().bench.workflow(query).catch(usage);
    if (cmd.globals.json) return printJson(cmd.io, result);
    const { summary, nodes } = result;
    if (summary.runs === 0) {
      cmd.io.err(`No completed or failed runs of '${workflow}'${options.since ? ` since ${options.since}` : ''}.\n`);
      return;
    }
    const paint = await styler(cmd.io);
    const usd = summary.usd > 0 ? ` · ${formatCost(summary.usd)}` : '';
    // Runs that waited (a person at a gate, a wait node) say how much of their time was work.
    const waited =
      summary.waitP95Ms > 0
        ? `\n  work p50 ${formatMs(summary.workP50Ms)} · p95 ${formatMs(summary.workP95Ms)}   waiting p50 ${formatMs(summary.waitP50Ms)} · p95 ${formatMs(summary.waitP95Ms)} (gates and waits)`
        : '';
    cmd.io.out(
      `${paint.bold(workflow)}: ${summary.runs} run${summary.runs === 1 ? '' : 's'} · p50 ${formatMs(summary.p50Ms)} · p95 ${formatMs(summary.p95Ms)} · p99 ${formatMs(summary.p99Ms)}${usd}${waited}\n`,
    );
    // Waiting nodes apart: their time is a person's (or a clock's), not svc's, and would otherwise
    // be the slowest bar of nearly every workflow with a gate.
    const work = nodes.filter((node) => !node.waits);
    const waiting = nodes.filter((node) => node.waits);
    const slowest = Math.max(0, ...work.map((n) => n.p50Ms));
    // Peak memory beside time and cost once any run measured it; runs recorded without it keep the old table.
    const measured = work.some((node) => node.peakRssP50Bytes != null);
    const size = (bytes: number | null | undefined) => (bytes == null ? '-' : formatSize(bytes));
    const rows = work.map((node) => {
      const cost = node.runsWithCost > 0 ? `${formatCost(node.totalCostUsd)}${node.runsWithCost < node.totalRuns ? ` (${node.runsWithCost} runs)` : ''}` : '-';
      const row = [
        node.stepName,
        formatMs(node.p50Ms),
        formatMs(node.p95Ms),
        node.totalRuns,
        cost,
        ...(measured ? [size(node.peakRssP50Bytes), size(node.peakRssP95Bytes)] : []),
      ];
      if (!cmd.io.isStdoutTTY) return row;
      const drawn = bar(node.p50Ms, slowest);
      return [...row, node.p50Ms === slowest && work.length > 1 ? paint.red(drawn) : paint.cyan(drawn)];
    });
    const memory = measured ? ['MEM P50', 'MEM P95'] : [];
    await printTable(cmd.io, ['NODE', 'P50', 'P95', 'RUNS', 'COST', ...memory, ...(cmd.io.isStdoutTTY ? [''] : [])], rows);
    if (waiting.length === 0) return;
    cmd.io.out(`\n${paint.dim('waiting, not work (a person at an approval gate, a wait node):')}\n`);
    await printTable(
      cmd.io,
      ['NODE', 'P50', 'P95', 'RUNS', 'WAITS FOR'],
      waiting.map((node) => [
        node.stepName,
        formatMs(node.p50Ms),
        formatMs(node.p95Ms),
        node.totalRuns,
        node.waits === 'approval' ? 'approval' : 'time or signal',
      ]),
    );
  },
});
