import { OUTPUT_LIMIT_BYTES } from '../../../shared/output-limit.js';
import { NodeFailure } from './types.js';

export { OUTPUT_LIMIT_BYTES };

const LIMIT_TEXT = `${OUTPUT_LIMIT_BYTES / (1024 * 1024)} MiB`;

/** The failure of a node whose output passed the limit; `did` says what it did ("printed more than … on stdout"). */
export function outputTooLarge(nodeId: string, did: 'printed' | 'answered'): NodeFailure {
  const what = did === 'printed' ? `printed more than ${LIMIT_TEXT} on stdout` : `answered more than ${LIMIT_TEXT}`;
  const stopped = did === 'printed' ? '; bash was stopped' : '';
  return new NodeFailure(
    'output_too_large',
    `output_too_large: node '${nodeId}' ${what}, the limit of a node's output${stopped}. Write large results to a file under $ARTIFACTS_DIR and pass its path instead.`,
  );
}

/**
 * The failure of a prompt node whose agent was stopped for printing a line longer than svc reads
 * of one (`output_too_large` from agents/line-splitter.ts): named like any output that passed its
 * limit, the code first, then the node; `message` is the agent's error.
 */
export function agentLineTooLarge(nodeId: string, message: string): NodeFailure {
  return new NodeFailure(
    'output_too_large',
    `output_too_large: node '${nodeId}': ${message}. Write large results to a file under $ARTIFACTS_DIR and pass its path instead.`,
  );
}
