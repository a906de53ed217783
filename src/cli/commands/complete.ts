import type { SvcClient } from '../../client/index.js';
import { COMPLETED_KINDS, type CompletedKind } from '../completion-kinds.js';
import { connect } from '../connect.js';
import { defineCommand } from '../define-command.js';
import { cwdOption } from './workflow/_shared.js';

/**
 * How long a server may take to answer a completion: a shell blocks on it, and an empty answer is
 * better than a hung prompt (the read is given up, its socket closed, so the process ends too).
 */
const COMPLETION_READ_TIMEOUT_MS = 1_500;

/** Newest runs offered: the ones a person is still working with. */
const RUNS_OFFERED = 100;

async function valuesOf(client: SvcClient, kind: CompletedKind): Promise<string[]> {
  if (kind === 'workflows') return (await client.workflows.list(cwdOption(undefined))).workflows.map((w) => w.name);
  if (kind === 'runs') return (await client.runs.list({ limit: RUNS_OFFERED })).runs.map((run) => run.id);
  // A workspace is offered by its name (what a person types; any command takes it), once per name.
  return [...new Set((await client.workspaces.list({ limit: 200 })).workspaces.map((w) => w.name))];
}

/**
 * `svc __complete <kind> [prefix]` (hidden): the values the shell completion scripts offer for an
 * argument or option (completion.ts), read from the server or, with none running, the store —
 * workflow names visible from the current directory, the newest run ids, workspace names. One a
 * line, those starting with `prefix`. It never fails loudly: on any error, or a server that does
 * not answer in time, it prints nothing and exits 0, so a TAB never prints an error into the
 * user's command line.
 */
export default defineCommand({
  args: [
    ['<kind>', COMPLETED_KINDS.join(', '), COMPLETED_KINDS],
    ['[prefix]', 'only values starting with this'],
  ],
  run: async (cmd, [kind, prefix]) => {
    const client = connect(cmd.settings, cmd.target, 'server-or-local', 'cli', { readTimeoutMs: COMPLETION_READ_TIMEOUT_MS });
    try {
      const values = await valuesOf(client, kind as CompletedKind).catch(() => []);
      const offered = values.filter((value) => !prefix || value.startsWith(prefix));
      if (offered.length > 0) cmd.io.out(`${offered.join('\n')}\n`);
    } finally {
      await client.close();
    }
  },
});
