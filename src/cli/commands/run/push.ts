import { defineCommand, RUN_ARG } from '../../define-command.js';
import { printJson } from '../../output.js';

/** `svc runs push <run> [--remote r]`: pushes the run's branch `svc/<runId>`; git never prompts. */
export default defineCommand({
  args: [RUN_ARG],
  options: { remote: ['--remote <name>', 'a remote name or URL (default origin)'] },
  run: async (cmd, [id], options) => {
    const pushed = await cmd.client().runs.push(id, options.remote ? { remote: options.remote } : {});
    if (cmd.globals.json) return printJson(cmd.io, pushed);
    cmd.io.out(`Pushed ${pushed.branch} to ${pushed.remote}.\n`);
  },
});
