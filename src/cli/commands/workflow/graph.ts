import { drawDag, toDrawNodes, toMermaid } from '../../../client/views.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';
import { columnsOf, cwdOption, fetchWorkflow } from './_shared.js';

/**
 * `svc workflow graph <name> [--mermaid] [--ascii]`: the DAG alone — boxes in layers for the
 * terminal, or a Mermaid `flowchart TD` to paste into Markdown.
 */
export default defineCommand({
  args: [['<workflow>', 'workflow name']],
  options: {
    mermaid: ['--mermaid', 'print a Mermaid flowchart instead'],
    ascii: ['--ascii', 'plain ASCII boxes'],
    cwd: CWD_OPTION,
  },
  run: async (cmd, [name], options) => {
    const doc = await fetchWorkflow(cmd, name, cwdOption(options.cwd));
    const nodes = toDrawNodes(doc.workflow);
    if (cmd.globals.json) return printJson(cmd.io, { name: doc.workflow.name, nodes, mermaid: toMermaid(nodes) });
    cmd.io.out(options.mermaid ? toMermaid(nodes) : drawDag(nodes, { ascii: Boolean(options.ascii), width: columnsOf(cmd) }));
  },
});
