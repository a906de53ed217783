import type { RunView } from '../../../engine/run-view.js';
import { toRunView } from '../../../engine/run-view.js';
import type { RunEvent } from '../../../engine/types.js';
import { viaServerOrStore } from '../../command-context.js';
import { printJson, printTable, styler } from '../../output.js';
import type { CommandRun } from '../../program.js';
import { formatCost, formatMs } from '../../runs/outcome.js';
import { drawTimeline } from '../../runs/timeline.js';

type RunDetail = RunView & { events: RunEvent[] };

const show: CommandRun = async (cmd, [id]) => {
  const run = await viaServerOrStore<RunDetail>(cmd, {
    online: (client) => client.request('GET', `/api/workflows/runs/${encodeURIComponent(id!)}`),
    offline: async (ctx) => {
      const record = ctx.engine.get(id!);
      return toRunView(record, { detail: true, events: await ctx.engine.runs.readEvents(record.id) }) as RunDetail;
    },
  });
  if (cmd.globals.json) return printJson(cmd.io, run);
  const p = await styler(cmd.io);
  const duration = run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '-';
  cmd.io.out(
    [
      `${p.bold(run.id)}  ${run.workflow}  ${run.status}${run.resumePending ? ' (resume pending)' : ''}`,
      `  message:  ${run.message || '(none)'}`,
      `  trigger:  ${run.trigger}   conversation: ${run.conversationId ?? '-'}   worker: ${run.platformId}`,
      `  cwd:      ${run.cwd}`,
      `  created:  ${run.createdAt}   duration: ${duration}   cost: ${formatCost(run.costUsd)}`,
      ...(run.error ? [`  error:    ${p.red(run.error)}`] : []),
      ...(run.rejectReason ? [`  rejected: ${run.rejectReason}`] : []),
      '',
    ].join('\n'),
  );
  await printTable(
    cmd.io,
    ['NODE', 'STATUS', 'DURATION', 'COST', 'ATTEMPTS', 'NOTE'],
    Object.entries(run.nodes).map(([nodeId, s]) => [
      nodeId,
      s.status,
      formatMs(s.durationMs),
      s.costUsd === null ? '' : formatCost(s.costUsd),
      s.attempts,
      s.error ?? s.reason ?? '',
    ]),
  );
  const timeline = drawTimeline(run);
  if (timeline.length) cmd.io.out(`\n${p.dim('timeline')}\n${timeline.join('\n')}\n`);
};

export default show;
