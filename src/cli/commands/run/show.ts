import { refusalsNote, type RunDetail, type RunView } from '../../../client/index.js';
import { formatSize } from '../../../shared/size.js';
import { printableText } from '../../../shared/printable.js';
import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printJson, printTable, styler } from '../../output.js';
import { formatCost, formatMs, formatSpend, setupSourceNote, waitText } from './_outcome.js';
import { drawTimeline } from './_timeline.js';
import { indentTail, toleratedNote } from './_failures.js';
import { forecastLine } from './_forecast.js';
import { pullLines } from './_pull.js';

/** A node's tool calls: `3`, `3 (1 denied)`; empty for a node without an agent. */
function toolsCell(node: RunView['nodes'][string]): string {
  if (node.toolCalls === undefined) return '';
  const denied = node.toolsDeniedCount ?? node.toolsDenied?.length ?? 0;
  return denied ? `${node.toolCalls} (${denied} denied)` : String(node.toolCalls);
}

/** A node's peak memory (`312 MB`, `312 MB of 2 GB` under a `max_memory`); empty where nothing was measured. */
function memoryCell(node: RunView['nodes'][string]): string {
  if (node.peakRssBytes == null) return '';
  return `${formatSize(node.peakRssBytes)}${node.maxMemoryBytes ? ` of ${formatSize(node.maxMemoryBytes)}` : ''}`;
}

/** The characters of a version hash shown (as `svc bench --by-version` and the dashboard show it). */
const SHORT_HASH = 8;

/**
 * The version the run executes (docs/decisions.md, "Versions"), whether the workflow changed since,
 * every version a resume ran it under, and how to list the runs of the same version.
 */
function versionLines(run: RunDetail): string[] {
  if (!run.definitionHash) return [];
  const short = run.definitionHash.slice(0, SHORT_HASH);
  const hashes = run.definitionHashes ?? [run.definitionHash];
  return [
    `  version:  ${short}${run.definitionChanged ? '  (the workflow changed since; an approval continues this version, a resume takes the new one)' : ''}${
      hashes.length > 1 ? `   ran under: ${hashes.map((hash) => hash.slice(0, SHORT_HASH)).join(' → ')}` : ''
    }`,
    `            same version: svc runs --workflow ${run.workflow} --definition-hash ${run.definitionHash}`,
  ];
}

const homeLabel = (home: { id: string; host: string | null; path: string | null }) => (home.host ? `${home.host}:${home.path}` : home.id);

/** Why a node ended as it did, and what of it was cut (docs/decisions.md, "Node output"). */
function nodeNote(nodeId: string, state: RunDetail['nodes'][string]): string {
  return [
    // An agent that ran outside its OS sandbox (level full, SVC_SANDBOX=off) says so on every show.
    state.sandbox === 'off' ? `unsandboxed (${state.sandboxOff ?? 'no reason recorded'})` : undefined,
    state.sandboxWarning ? `sandbox weakened: ${state.sandboxWarning}` : undefined,
    state.sandboxDenied ? `sandbox refused ${state.sandboxDenied}` : undefined,
    state.tolerated ? 'tolerated (continue_on_error)' : undefined,
    state.waitingFor ? `waiting for ${state.waitingFor}` : undefined,
    state.status === 'waiting' && !state.waitingFor ? `waits ${waitText({ until: state.waitUntil, event: state.waitEvent })}` : undefined,
    state.error ?? state.reason ?? (state.toolsDenied?.length ? `denied: ${state.toolsDenied.join(', ')}` : undefined),
    state.outputTruncated ? `output truncated in the run detail (whole in ${nodeId}.out)` : undefined,
    state.logTruncated ? `${nodeId}.log truncated (see its last line)` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}

/** A waiting run: its next wake-up, and the events a signal may deliver. */
function waitsLine(run: RunDetail): string {
  const events = Object.values(run.nodes).flatMap((s) => (s.status === 'waiting' && s.waitEvent ? [s.waitEvent] : []));
  return [
    run.wakeAt ? `until ${run.wakeAt}` : undefined,
    events.length ? `for ${events.map((e) => `'${e}'`).join(', ')} (svc signal ${run.id} <event>)` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}

/** `svc runs show <run>`: nodes with status, duration and cost, and a timeline. */
export default defineCommand({
  args: [RUN_ARG],
  run: async (cmd, [id]) => {
    const run = await cmd.client().runs.get(id);
    if (cmd.globals.json) return printJson(cmd.io, run);
    const p = await styler(cmd.io);
    const forecast = await forecastLine(cmd, run);
    const duration = run.startedAt && run.finishedAt ? formatMs(Date.parse(run.finishedAt) - Date.parse(run.startedAt)) : '-';
    const denied = [refusalsNote(run), toleratedNote(run)].filter(Boolean).join('; ');
    cmd.io.out(
      [
        `${p.bold(run.id)}  ${run.workflow}  ${run.status}${denied ? p.yellow(` — ${denied}`) : ''}${run.resumePending ? ' (resume pending)' : ''}`,
        // A reaction's run's message quotes GitHub (a log, a reviewer's words): no escape or control character reaches the terminal.
        `  message:  ${printableText(run.message) || '(none)'}`,
        `  trigger:  ${run.trigger}   conversation: ${run.conversationId ?? '-'}   worker: ${run.platformId}`,
        `  cwd:      ${run.cwd}`,
        ...versionLines(run),
        // A run in a worktree of its own: each node's change is a commit on this branch (`svc runs diff`).
        ...(run.branch ? [`  branch:   ${run.branch}   ${(run.baseCommit ?? '').slice(0, 10)}..${(run.headCommit ?? '').slice(0, 10)}`] : []),
        ...(run.fromRunId ? [`  follows:  ${run.fromRunId}`] : []),
        // The worktree setup (.svc/worktree.yaml): its state; what it printed is in `--json` and on the dashboard.
        ...(run.setup
          ? [
              `  setup:    ${run.setup.status} in ${formatMs(run.setup.durationMs)}${setupSourceNote(run.setup.source)}${run.setup.copied.length ? `   copied: ${run.setup.copied.join(', ')}` : ''}`,
            ]
          : []),
        // What landed it (`svc runs merge`, `svc runs pr`).
        ...(run.merged
          ? [
              run.merged.alreadyLanded
                ? `  merged:   already landed in ${run.merged.into} (by hand) ${run.merged.commit}`
                : `  merged:   into ${run.merged.into} (${run.merged.strategy}) ${run.merged.commit}`,
            ]
          : []),
        // The pull request as svc follows it (docs/decisions.md, "Pull request reactions"), else as opened.
        ...(run.pr ? pullLines(run, p) : run.pullRequest ? [`  pr:       ${run.pullRequest.url}`] : []),
        // The conflict forecast (docs/decisions.md, "Conflict forecast"): what landing it would meet.
        ...(forecast ? [`  forecast: ${forecast.startsWith('conflicts') ? p.yellow(forecast) : forecast}`] : []),
        // With a shared database (docs/scaling.md): the server that executes or executed it, and where its worktree is.
        ...(run.serverId || run.worktreeHome
          ? [`  server:   ${run.serverId ?? '(none yet)'}${run.worktreeHome ? `   worktree home: ${homeLabel(run.worktreeHome)}` : ''}`]
          : []),
        ...(run.waitingFor ? [`  waiting:  ${p.yellow(`for ${run.waitingFor}`)}`] : []),
        // A durable wait (docs/decisions.md, "Waits and signals"): when the server continues it, and how to signal it.
        ...(run.status === 'waiting' ? [`  waits:    ${p.yellow(waitsLine(run))}`] : []),
        `  created:  ${run.createdAt}   duration: ${duration}   cost: ${formatCost(run.costUsd)}${
          // The peak of its nodes' memory at once (docs/decisions.md, "What a run costs the machine").
          run.peakRssBytes != null ? `   peak memory: ${formatSize(run.peakRssBytes)}` : ''
        }`,
        ...(formatSpend(run) ? [`  budget:   ${formatSpend(run)}`] : []),
        ...(run.error ? [`  error:    ${p.red(run.error)}`] : []),
        // An agent's usage limit (docs/decisions.md, "Usage limits"): when a resume can succeed.
        ...(run.resumeAt ? [`  limit:    ${p.yellow(`usage limit resets at ${run.resumeAt}`)}`] : []),
        // Auto-resume (docs/decisions.md, "Auto-resume"): the server's wake-up with the run.
        ...(run.autoResumeAt ? [`  resumes:  ${p.yellow(`automatically at ${run.autoResumeAt}`)} (svc cancel ${run.id} calls it off)`] : []),
        ...(run.rejectReason ? [`  rejected: ${run.rejectReason}`] : []),
        '',
      ].join('\n'),
    );
    await printTable(
      cmd.io,
      ['NODE', 'STATUS', 'DURATION', 'COST', 'ATTEMPTS', 'TOOLS', 'MEMORY', 'CPU', 'NOTE'],
      Object.entries(run.nodes).map(([nodeId, s]) => [
        nodeId,
        s.status,
        formatMs(s.durationMs),
        s.costUsd === null ? '' : formatCost(s.costUsd),
        s.attempts,
        toolsCell(s),
        memoryCell(s),
        s.cpuSeconds == null ? '' : `${s.cpuSeconds}s`,
        nodeNote(nodeId, s),
      ]),
    );
    // Names only (docs/contract.md, "Least-privilege environment"): what each process got beyond the base set.
    const given = Object.entries(run.nodes).filter(([, s]) => s.envGiven !== undefined);
    if (given.length) {
      cmd.io.out(
        `\n${p.dim('environment beyond the base set')}\n${given.map(([nodeId, s]) => `  ${nodeId}: ${s.envGiven!.join(' ') || '(none)'}`).join('\n')}\n`,
      );
    }
    // Why each failed node failed, in its own words: the last lines it printed (the run detail's `logTail`).
    for (const [nodeId, s] of Object.entries(run.nodes)) {
      if (s.status !== 'failed' || !s.logTail) continue;
      cmd.io.out(`\n${p.dim(`${nodeId}: last lines of its log (all of it: svc runs logs ${run.id} ${nodeId})`)}\n${indentTail(s.logTail, p)}\n`);
    }
    const timeline = drawTimeline(run);
    if (timeline.length) cmd.io.out(`\n${p.dim('timeline')}\n${timeline.join('\n')}\n`);
  },
});
