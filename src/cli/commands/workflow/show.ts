import { drawDag, toDrawNodes } from '../../../workflows/draw.js';
import type { WorkflowDocument } from '../../../catalog/views.js';
import type { CommandContext } from '../../command-context.js';
import type { CommandRun } from '../../program.js';
import { printJson, styler } from '../../output.js';
import { columnsOf, cwdOption, viaCatalog, withCwd } from './_shared.js';

/** One workflow through the server, or the store when none runs (shared by show and graph). */
export async function fetchWorkflow(cmd: CommandContext, name: string, cwd: string): Promise<WorkflowDocument> {
  const { toWorkflowDocument } = await import('../../../catalog/views.js');
  return viaCatalog<WorkflowDocument>(cmd, {
    online: (client) => client.request('GET', withCwd(`/api/workflows/${encodeURIComponent(name)}`, cwd)),
    offline: async (ctx) => toWorkflowDocument(await ctx.workflows.get(name, cwd)),
  });
}

/** `svc workflow show <name>`: where it comes from, the definition as written, and its DAG. */
const show: CommandRun = async (cmd, [name], options) => {
  const doc = await fetchWorkflow(cmd, name as string, cwdOption(options));
  if (cmd.globals.json) return printJson(cmd.io, doc);
  const paint = await styler(cmd.io);
  const { toYamlText } = await import('../../../runtime.js');
  cmd.io.out(
    [
      `${paint.bold(doc.workflow.name)} ${paint.dim(`(${doc.source})`)}`,
      doc.workflow.description,
      paint.dim(doc.filename),
      '',
      toYamlText(doc.workflow).trimEnd(),
      '',
      drawDag(toDrawNodes(doc.workflow), { width: columnsOf(cmd) }),
    ].join('\n'),
  );
};

export default show;
