import { defineCommand } from '../../define-command.js';
import { printJson, printTable, styler } from '../../output.js';
import { formatCost, formatMs } from '../run/_outcome.js';
import { formatDelta } from './_format.js';

const sum = (values: Array<number | null>) => values.reduce<number | null>((total, v) => (v === null ? total : (total ?? 0) + v), null);

/** `svc bench compare <runA> <runB>`: node by node, B against A (slower red, faster green on a TTY), with totals. */
export default defineCommand({
  args: [
    ['<runA>', 'the run to compare against'],
    ['<runB>', 'the run compared'],
  ],
  run: async (cmd, [runA, runB]) => {
    const result = await cmd.client().bench.compare(runA, runB);
    if (cmd.globals.json) return printJson(cmd.io, result);
    const paint = await styler(cmd.io);
    const delta = (ms: number | null) => {
      const text = formatDelta(ms, formatMs);
      return ms === null || ms === 0 ? text : ms > 0 ? paint.red(text) : paint.green(text);
    };
    const rows = result.nodes.map((n) => [
      n.stepName,
      formatMs(n.runAMs),
      formatMs(n.runBMs),
      delta(n.deltaMs),
      formatCost(n.runACostUsd),
      formatCost(n.runBCostUsd),
    ]);
    // Totals over the nodes both runs executed, so a node one of them skipped does not count as a change.
    const both = result.nodes.filter((n) => n.deltaMs !== null);
    rows.push([
      paint.bold('total'),
      formatMs(sum(result.nodes.map((n) => n.runAMs))),
      formatMs(sum(result.nodes.map((n) => n.runBMs))),
      delta(sum(both.map((n) => n.deltaMs))),
      formatCost(sum(result.nodes.map((n) => n.runACostUsd))),
      formatCost(sum(result.nodes.map((n) => n.runBCostUsd))),
    ]);
    await printTable(cmd.io, ['NODE', 'A', 'B', 'DELTA', 'COST A', 'COST B'], rows);
  },
});
