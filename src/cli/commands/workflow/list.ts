import type { WorkflowListing, WorkflowSummary } from '../../../catalog/views.js';
import type { CommandRun } from '../../program.js';
import { printJson, printTable, styler } from '../../output.js';
import { cwdOption, viaCatalog, withCwd } from './_shared.js';

const triggersOf = (w: WorkflowSummary) => w.triggers.map((t) => `${t.kind}:${t.slug}`).join(',');

/**
 * `svc workflow list [--cwd dir]`: a table on a TTY; piped, one tab-separated line per workflow
 * (name, source, nodes, triggers, description, file). Files that failed to load go to stderr as
 * `file:line:col: message` lines; the listing itself still succeeds (exit 0).
 */
const list: CommandRun = async (cmd, _args, options) => {
  const cwd = cwdOption(options);
  const { toWorkflowListing } = await import('../../../catalog/views.js');
  const listing = await viaCatalog<WorkflowListing>(cmd, {
    online: (client) => client.request('GET', withCwd('/api/workflows', cwd)),
    offline: async (ctx) => toWorkflowListing(await ctx.workflows.discover(cwd)),
  });
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
  const errors = listing.errors ?? [];
  if (errors.length > 0) {
    const paint = await styler({ ...cmd.io, color: cmd.io.color && cmd.io.isStderrTTY });
    const files = new Set(errors.map((e) => e.filename)).size;
    cmd.io.err(`${paint.red(`${files} workflow file${files === 1 ? '' : 's'} could not be used:`)}\n`);
    for (const error of errors) cmd.io.err(`${error.error}\n`);
  }
};

export default list;
