import { packageVersion } from '../../shared/version.js';
import { updateCheck } from '../../system/health.js';
import { viaServerOrStore } from '../command-context.js';
import type { CommandRun } from '../program.js';
import { printJson } from '../output.js';

type UpdateCheck = ReturnType<typeof updateCheck>;

const updateCheckCommand: CommandRun = async (cmd) => {
  const result = await viaServerOrStore<UpdateCheck>(cmd, {
    online: (client) => client.request('GET', '/api/update-check'),
    offline: async () => updateCheck(packageVersion()),
  });
  if (cmd.globals.json) printJson(cmd.io, result);
  else if (result.updateAvailable) cmd.io.out(`svc ${result.latestVersion} is available (you have ${result.currentVersion}): ${result.releaseUrl}\n`);
  else cmd.io.out(`svc ${result.currentVersion} is up to date.\n`);
};

export default updateCheckCommand;
