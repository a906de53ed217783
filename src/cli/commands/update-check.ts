import { defineCommand } from '../define-command.js';
import { printJson } from '../output.js';

/** `svc update-check`. */
export default defineCommand({
  run: async (cmd) => {
    const result = await cmd.client().system.updateCheck();
    if (cmd.globals.json) printJson(cmd.io, result);
    else if (result.updateAvailable) cmd.io.out(`svc ${result.latestVersion} is available (you have ${result.currentVersion}): ${result.releaseUrl}\n`);
    else cmd.io.out(`svc ${result.currentVersion} is up to date.\n`);
  },
});
