import { COMPLETED_KINDS, type CompletedKind } from '../completion-kinds.js';
import type { CommandContext } from '../context.js';
import { defineCommand } from '../define-command.js';
import { cwdOption } from './workflow/_shared.js';

/** How long a completion may wait for its values: a shell blocks on it, and an empty answer is better than a hung prompt. */
const COMPLETION_BUDGET_MS = 2_000;

/** Newest runs offered: the ones a person is still working with. */
const RUNS_OFFERED = 100;

async function valuesOf(cmd: CommandContext, kind: CompletedKind): Promise<string[]> {
  const client = cmd.client();
  if (kind === 'workflows') return (await client.workflows.list(cwdOption(undefined))).workflows.map((w) => w.name);
  if (kind === 'runs') return (await client.runs.list({ limit: RUNS_OFFERED })).runs.map((run) => run.id);
  // A workspace is offered by its name (what a person types; any command takes it), once per name.
  return [...new Set((await client.workspaces.list({ limit: 200 })).workspaces.map((w) => w.name))];
}

/**
 * `svc __complete <kind> [prefix]` (hidden): the values the shell completion scripts offer for an
 * argument or option (completion.ts), read from the server or, with none running, the store —
 * workflow names visible from the current directory, the newest run ids, workspace names. One a
 * line, those starting with `prefix`. It never fails loudly: on any error, or past its budget, it
 * prints nothing and exits 0, so a TAB never prints an error into the user's command line.
 */
export default defineCommand({
  args: [
    ['<kind>', COMPLETED_KINDS.join(', '), COMPLETED_KINDS],
    ['[prefix]', 'only values starting with this'],
  ],
  run: async (cmd, [kind, prefix]) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string[]>((resolve) => {
      timer = setTimeout(() => resolve([]), COMPLETION_BUDGET_MS);
    });
    const values = await Promise.race([valuesOf(cmd, kind as CompletedKind).catch(() => []), late]);
    clearTimeout(timer);
    const offered = values.filter((value) => !prefix || value.startsWith(prefix));
    if (offered.length > 0) cmd.io.out(`${offered.join('\n')}\n`);
  },
});
