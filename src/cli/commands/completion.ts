import { SHELLS } from '../completion.js';
import { defineCommand } from '../define-command.js';

/** `svc completion bash|zsh|fish`: generated from the command tree, so nothing is listed twice. */
export default defineCommand({
  args: [['<shell>', 'bash, zsh or fish', Object.keys(SHELLS)]],
  run: async (cmd, [shell]) => {
    cmd.io.out(SHELLS[shell as keyof typeof SHELLS](await cmd.commandTree()));
  },
});
