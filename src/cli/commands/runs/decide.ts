import type { RunView } from '../../../engine/run-view.js';
import { toRunView } from '../../../engine/run-view.js';
import { viaServerOrStore, type CommandContext } from '../../command-context.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import type { CommandRun } from '../../program.js';
import { applyOperation, printOutcome } from './operations.js';

/** With no run id on a TTY, offer the paused runs (gh-style: prompts only where someone can answer). */
async function pickPausedRun(cmd: CommandContext, verb: string): Promise<string> {
  if (!cmd.io.canPrompt) throw new UsageError(`give the run id to ${verb} (prompts need a terminal)`);
  const runs = await viaServerOrStore<RunView[]>(cmd, {
    online: async (client) => (await client.request<{ runs: RunView[] }>('GET', '/api/workflows/runs?status=paused&limit=50')).runs,
    offline: async (ctx) => ctx.engine.list({ status: ['paused'], limit: 50 }).runs.map((run) => toRunView(run)),
  });
  if (runs.length === 0) throw new CliError('No run is paused for approval.', EXIT.failed);
  const prompts = await import('@clack/prompts');
  const choice = await prompts.select({
    message: `Which run do you want to ${verb}?`,
    options: runs.map((run) => ({ value: run.id, label: `${run.workflow} ${run.id}`, hint: run.message.slice(0, 60) })),
  });
  if (prompts.isCancel(choice)) throw new CliError('Cancelled.', EXIT.cancelled);
  return choice;
}

async function askText(cmd: CommandContext, message: string): Promise<string | undefined> {
  if (!cmd.io.canPrompt) return undefined;
  const prompts = await import('@clack/prompts');
  const answer = await prompts.text({ message, placeholder: '(optional, Enter to skip)' });
  if (prompts.isCancel(answer)) throw new CliError('Cancelled.', EXIT.cancelled);
  return answer.trim() || undefined;
}

/** `svc approve [run] [--comment text]`. */
export const approve: CommandRun = async (cmd, [id], options) => {
  const runId = id ?? (await pickPausedRun(cmd, 'approve'));
  const comment = (options.comment as string | undefined) ?? (id ? undefined : await askText(cmd, "Comment (becomes the gate's output)"));
  printOutcome(cmd, 'approve', await applyOperation(cmd, 'approve', runId, comment === undefined ? {} : { comment }));
};

/** `svc reject [run] [--reason text]`. */
export const reject: CommandRun = async (cmd, [id], options) => {
  const runId = id ?? (await pickPausedRun(cmd, 'reject'));
  const reason = (options.reason as string | undefined) ?? (id ? undefined : await askText(cmd, 'Reason'));
  printOutcome(cmd, 'reject', await applyOperation(cmd, 'reject', runId, reason === undefined ? {} : { reason }));
};
