import type { WorkflowSummary } from '../../../client/index.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';
import { cwdOption, reportUnusableFiles, WORKSPACE_OPTION, workspaceOf } from './_shared.js';

const triggersOf = (w: WorkflowSummary) => w.triggers.map((t) => `${t.kind}:${t.slug}`).join(',');

/** The workspace a workflow belongs to, by name (its id when it has none); '-' for the cwd's project and bundled ones (a last column is never empty). */
const workspaceLabel = (w: WorkflowSummary) => w.workspaceName ?? w.workspaceId ?? '-';

/**
 * `svc workflow list [--cwd dir] [--workspace id]`: a table on a TTY; piped, one tab-separated line
 * per workflow (name, source, nodes, triggers, description, file, workspace). A name shows once as
 * it is meant from here, and once more for each other workspace that has its own. Files that failed
 * to load go to stderr as `file:line:col: message` lines; the listing itself still succeeds (exit 0).
 */
export default defineCommand({
  options: { cwd: CWD_OPTION, workspace: WORKSPACE_OPTION },
  run: async (cmd, _args, options) => {
    const listing = await cmd.client().workflows.list(cwdOption(options.cwd), workspaceOf(options.workspace));
    if (cmd.globals.json) return printJson(cmd.io, listing);

    if (cmd.io.isStdoutTTY) {
      await printTable(
        cmd.io,
        ['NAME', 'WORKSPACE', 'SOURCE', 'NODES', 'TRIGGERS', 'DESCRIPTION'],
        listing.workflows.map((w) => [w.name, workspaceLabel(w), w.source, w.nodes, triggersOf(w) || '-', w.description]),
      );
    } else {
      await printTable(
        cmd.io,
        [],
        listing.workflows.map((w) => [w.name, w.source, w.nodes, triggersOf(w), w.description, w.filename, workspaceLabel(w)]),
      );
    }
    await reportUnusableFiles(cmd, listing.errors ?? [], 'workflow file');
  },
});
