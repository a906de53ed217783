import type { AssistantsConfig } from '../../../config/assistants.js';
import { viaServerOrStore } from '../../command-context.js';
import { UsageError } from '../../exit-codes.js';
import type { CommandRun } from '../../program.js';
import { printJson } from '../../output.js';

const setModel: CommandRun = async (cmd, [assistant, model]) => {
  const { AssistantsPatchSchema } = await import('../../../runtime.js');
  const parsed = AssistantsPatchSchema.safeParse({ [assistant ?? '']: { model } });
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid model');
  const result = await viaServerOrStore<AssistantsConfig>(cmd, {
    online: (client) => client.request('PATCH', '/api/config/assistants', parsed.data),
    offline: (ctx) => ctx.assistants.update(parsed.data),
    writes: true,
  });
  if (cmd.globals.json) printJson(cmd.io, result);
  else cmd.io.out(`${assistant} now uses model ${model}.\n`);
};

export default setModel;
