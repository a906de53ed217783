/**
 * The most a node may pass on as its output (`$id.output`, `<node>.out`): bash's stdout, an agent's
 * final answer. An output is held in memory for the rest of its run and passed whole to later
 * scripts and prompts, so a larger one fails the node with `output_too_large` rather than being
 * passed on cut (docs/decisions.md, "Node output"). An agent that streams its answer in pieces (an
 * ACP agent) is stopped as soon as they pass it.
 */
export const OUTPUT_LIMIT_BYTES = 16 * 1024 * 1024;
