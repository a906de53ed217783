import type { WorkflowSummary } from '../../../client/index.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';
import { cwdOption, reportUnusableFiles } from './_shared.js';

const triggersOf = (w: WorkflowSummary) => w.triggers.map((t) => `${t.kind}:${t.slug}`).join(',');

/**
 * `svc workflow list [--cwd dir]`: a table on a TTY; piped, one tab-separated line per workflow
 * (name, source, nodes, triggers, description, file). Files that failed to load go to stderr as
 * `file:line:col: message` lines; the listing itself still succeeds (exit 0).
 */
export default defineCommand({
  options: { cwd: CWD_OPTION },
  run: async (cmd, _args, options) => {
    const listing = await cmd.client().workflows.list(cwdOption(options.cwd));
    if (cmd.globals.json) return printJson(cmd.io, listing);

    if (cmd.io.isStdoutTTY) {
      await printTable(
        cmd.io,
        ['NAME', 'SOURCE', 'NODES', 'TRIGGERS', 'DESCRIPTION'],
        listing.workflows.map((w) => [w.name, w.source, w.nodes, triggersOf(w) || '-', w.description]),
      );
    } else {
      await printTable(
        cmd.io,
        [],
        listing.workflows.map((w) => [w.name, w.source, w.nodes, triggersOf(w), w.description, w.filename]),
      );
    }
    await reportUnusableFiles(cmd, listing.errors ?? [], 'workflow file');
  },
});
