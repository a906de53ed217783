import { drawDag, toDrawNodes, toMermaid } from '../../../workflows/draw.js';
import type { CommandRun } from '../../program.js';
import { printJson } from '../../output.js';
import { columnsOf, cwdOption } from './_shared.js';
import { fetchWorkflow } from './show.js';

/**
 * `svc workflow graph <name> [--mermaid] [--ascii]`: the DAG alone — boxes in layers for the
 * terminal, or a Mermaid `flowchart TD` to paste into Markdown.
 */
const graph: CommandRun = async (cmd, [name], options) => {
  const doc = await fetchWorkflow(cmd, name as string, cwdOption(options));
  const nodes = toDrawNodes(doc.workflow);
  if (cmd.globals.json) return printJson(cmd.io, { name: doc.workflow.name, nodes, mermaid: toMermaid(nodes) });
  cmd.io.out(options.mermaid ? toMermaid(nodes) : drawDag(nodes, { ascii: Boolean(options.ascii), width: columnsOf(cmd) }));
};

export default graph;
