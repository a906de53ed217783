import { refusalsNote, type RunView } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { printJson } from '../../output.js';

const PAST = {
  cancel: 'cancelled',
  abandon: 'abandoned',
  resume: 'marked for resume',
  approve: 'approved',
  reject: 'rejected',
  delete: 'deleted',
} as const;

/** `Run <id> cancelled (now cancelled).`, or the answer itself with --json. */
export function printOutcome(cmd: CommandContext, op: keyof typeof PAST, result: RunView | { deleted: true; runId: string }): void {
  if (cmd.globals.json) return printJson(cmd.io, result);
  const id = 'id' in result ? result.id : result.runId;
  // A failed run's auto-resume called off (docs/decisions.md, "Auto-resume"): the run itself stays failed.
  if ((op === 'cancel' || op === 'abandon') && 'status' in result && result.status === 'failed') {
    return void cmd.io.out(`Run ${id}: its auto-resume was called off (it stays failed; svc resume ${id} continues it).\n`);
  }
  const denied = 'nodes' in result ? refusalsNote(result) : undefined;
  cmd.io.out(`Run ${id} ${PAST[op]}${'status' in result ? ` (now ${result.status}${denied ? ` — ${denied}` : ''})` : ''}.\n`);
}
