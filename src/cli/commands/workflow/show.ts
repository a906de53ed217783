import { drawDag, toDrawNodes } from '../../../client/views.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson, styler } from '../../output.js';
import { columnsOf, cwdOption, fetchWorkflow, WORKSPACE_OPTION } from './_shared.js';

/** `svc workflow show <name>`: where it comes from, the definition as written, its agents' permissions, and its DAG. */
export default defineCommand({
  args: [['<workflow>', 'workflow name']],
  options: { cwd: CWD_OPTION, workspace: WORKSPACE_OPTION },
  run: async (cmd, [name], options) => {
    const doc = await fetchWorkflow(cmd, name, cwdOption(options.cwd), options.workspace);
    if (cmd.globals.json) return printJson(cmd.io, doc);
    const paint = await styler(cmd.io);
    const { toYamlText } = await import('../../../runtime.js');
    const nodes = toDrawNodes(doc.workflow);
    // What each agent may do, defaults applied: the YAML shows only what was written.
    const agents = nodes.filter((node) => node.permissions);
    cmd.io.out(
      [
        `${paint.bold(doc.workflow.name)} ${paint.dim(`(${doc.source}${doc.workspaceId ? `, workspace ${doc.workspaceId}` : ''})`)}`,
        doc.workflow.description,
        paint.dim(doc.filename),
        '',
        toYamlText(doc.workflow).trimEnd(),
        '',
        ...(agents.length ? [`agent permissions: ${agents.map((node) => `${node.id} ${node.permissions}`).join(', ')}`, ''] : []),
        drawDag(nodes, { width: columnsOf(cmd) }),
      ].join('\n'),
    );
  },
});
