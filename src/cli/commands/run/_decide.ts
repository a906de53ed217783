import type { RunView } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import { askOrStop } from '../../prompt.js';
import { followRun, waitsForServe, waitsForServer } from './_follow.js';

/** With no run id on a TTY, offer the paused runs (gh-style: prompts only where someone can answer). */
export async function pickPausedRun(cmd: CommandContext, verb: string): Promise<string> {
  if (!cmd.io.canPrompt) throw new UsageError(`give the run id to ${verb} (prompts need a terminal)`);
  const { runs } = await cmd.client().runs.list({ status: 'paused', limit: 50 });
  if (runs.length === 0) throw new CliError('No run is paused for approval.', EXIT.failed);
  const prompts = await import('@clack/prompts');
  return askOrStop(cmd.io, `give the run id: svc ${verb} <run>`, (terminal) =>
    prompts.select({
      message: `Which run do you want to ${verb}?`,
      options: runs.map((run) => ({ value: run.id, label: `${run.workflow} ${run.id}`, hint: run.message.slice(0, 60) })),
      ...terminal,
    }),
  );
}

export async function askText(cmd: CommandContext, message: string, instead: string): Promise<string | undefined> {
  if (!cmd.io.canPrompt) return undefined;
  const prompts = await import('@clack/prompts');
  const answer = await askOrStop(cmd.io, instead, (terminal) => prompts.text({ message, placeholder: '(optional, Enter to skip)', ...terminal }));
  return answer.trim() || undefined;
}

/**
 * The run after a decision. With no server, this process carries it on (nothing else would), so
 * the answer is the run once it settles again; a server carries it on by itself. On a shared
 * database with no server here, an approved run waits `pending` for one: said so.
 */
export async function carriedOn(cmd: CommandContext, run: RunView): Promise<RunView> {
  const client = cmd.client();
  const host = await client.runHost();
  if (host === 'database' && run.status === 'pending') cmd.io.err(waitsForServer(run.id, true));
  if (host !== 'process') return run;
  const settled = await followRun(client, run.id, () => {}, 0, { untilWaiting: true });
  if (settled.status === 'waiting') cmd.io.err(waitsForServe(settled));
  return settled;
}
