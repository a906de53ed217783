import type { RunView } from '../../../engine/run-view.js';
import { toRunView } from '../../../engine/run-view.js';
import { viaServerOrStore, type CommandContext } from '../../command-context.js';
import { printJson } from '../../output.js';
import type { CommandRun } from '../../program.js';

type Operation = 'cancel' | 'abandon' | 'resume' | 'approve' | 'reject' | 'delete';

const PAST: Record<Operation, string> = {
  cancel: 'cancelled',
  abandon: 'abandoned',
  resume: 'marked for resume',
  approve: 'approved',
  reject: 'rejected',
  delete: 'deleted',
};

/** One lifecycle operation, through the server or on the store (CONTRACT §5's table decides). */
export async function applyOperation(
  cmd: CommandContext,
  op: Operation,
  id: string,
  body?: Record<string, string>,
): Promise<RunView | { deleted: true; runId: string }> {
  const path = `/api/workflows/runs/${encodeURIComponent(id)}`;
  return viaServerOrStore(cmd, {
    online: (client) => (op === 'delete' ? client.request('DELETE', path) : client.request('POST', `${path}/${op}`, body)),
    offline: async (ctx) => {
      const engine = ctx.engine;
      if (op === 'delete') return { deleted: true as const, runId: (await engine.delete(id)).id };
      // No server will carry an approved run on, so it continues here, in the foreground.
      if (op === 'approve') return toRunView(await engine.waitUntilSettled((await engine.approve(id, body?.comment)).id));
      if (op === 'reject') return toRunView(await engine.reject(id, body?.reason));
      return toRunView(await engine[op](id));
    },
    writes: true,
  });
}

export function printOutcome(cmd: CommandContext, op: Operation, result: RunView | { deleted: true; runId: string }): void {
  if (cmd.globals.json) return printJson(cmd.io, result);
  const id = 'id' in result ? result.id : result.runId;
  cmd.io.out(`Run ${id} ${PAST[op]}${'status' in result ? ` (now ${result.status})` : ''}.\n`);
}

const simple =
  (op: 'cancel' | 'abandon' | 'delete'): CommandRun =>
  async (cmd, [id]) => {
    printOutcome(cmd, op, await applyOperation(cmd, op, id!));
  };

export const cancel = simple('cancel');
export const abandon = simple('abandon');
export const remove = simple('delete');
