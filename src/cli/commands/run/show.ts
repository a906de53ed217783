import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printJson, printTable, styler } from '../../output.js';
import { formatCost, formatMs } from './_outcome.js';
import { drawTimeline } from './_timeline.js';

const homeLabel = (home: { id: string; host: string | null; path: string | null }) => (home.host ? `${home.host}:${home.path}` : home.id);

/** `svc runs show <run>`: nodes with status, duration and cost, and a timeline. */
export default defineCommand({
  args: [RUN_ARG],
  run: async (cmd, [id]) => {
    const run = await cmd.client().runs.get(id);
    if (cmd.globals.json) return printJson(cmd.io, run);
    const p = await styler(cmd.io);
    const duration = run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '-';
    cmd.io.out(
      [
        `${p.bold(run.id)}  ${run.workflow}  ${run.status}${run.resumePending ? ' (resume pending)' : ''}`,
        `  message:  ${run.message || '(none)'}`,
        `  trigger:  ${run.trigger}   conversation: ${run.conversationId ?? '-'}   worker: ${run.platformId}`,
        `  cwd:      ${run.cwd}`,
        // A run in a worktree of its own: each node's change is a commit on this branch (`svc runs diff`).
        ...(run.branch ? [`  branch:   ${run.branch}   ${(run.baseCommit ?? '').slice(0, 10)}..${(run.headCommit ?? '').slice(0, 10)}`] : []),
        // With a shared database (docs/scaling.md): the server that executes or executed it, and where its worktree is.
        ...(run.serverId || run.worktreeHome
          ? [`  server:   ${run.serverId ?? '(none yet)'}${run.worktreeHome ? `   worktree home: ${homeLabel(run.worktreeHome)}` : ''}`]
          : []),
        ...(run.waitingFor ? [`  waiting:  ${p.yellow(`for ${run.waitingFor}`)}`] : []),
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
  },
});
