import type { CommandRun } from '../../program.js';
import { printJson } from '../../output.js';
import { cwdOption, viaCatalog, withCwd } from './_shared.js';

/** `svc workflow delete <name> [--cwd dir]`: removes a project workflow file; bundled ones are read-only. */
const remove: CommandRun = async (cmd, [name], options) => {
  const cwd = cwdOption(options);
  const result = await viaCatalog<{ name: string; deleted: string[] }>(cmd, {
    online: (client) => client.request('DELETE', withCwd(`/api/workflows/${encodeURIComponent(name as string)}`, cwd)),
    offline: (ctx) => ctx.workflows.remove(name as string, cwd),
    writes: true,
  });
  if (cmd.globals.json) return printJson(cmd.io, result);
  for (const file of result.deleted) cmd.io.out(`Deleted ${file}\n`);
};

export default remove;
