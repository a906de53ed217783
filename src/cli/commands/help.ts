import { defineCommand } from '../define-command.js';
import { EXIT, EXIT_CODE_HELP } from '../exit-codes.js';

const TOPICS: Record<string, string> = {
  'exit-codes': EXIT_CODE_HELP,
  environment: `Environment:
  PORT                              listening port (default 3090; automatic 3190-4089 in a git worktree)
  SVC_HOST                          bind address (default 127.0.0.1; anything else is exposed without auth)
  SVC_HOME                          all state (default ~/.svc)
  SVC_URL                           server the CLI talks to
  SVC_MAX_CONCURRENT_RUNS           runs executing at once (default 4)
  SVC_AGENT_FIRST_EVENT_TIMEOUT_MS  agent first-output timeout (default 60000)
  SVC_AGENT_IDLE_TIMEOUT_MS         agent node stall timeout, unless idle_timeout is set (default 600000)
  SVC_CLAUDE_BIN, SVC_CODEX_BIN     agent executables (default claude, codex on PATH)
  SVC_LOG_LEVEL                     debug, info, warn, error (default info)
  NO_COLOR, CLICOLOR, CLICOLOR_FORCE  colour control
  CI, SVC_PROMPT_DISABLED           no prompts or spinners
`,
};

/** `svc help [command...]` and the topics `exit-codes` and `environment`. */
export default defineCommand({
  args: [['[topic...]', 'a command name, or exit-codes']],
  run: async (cmd, [topic]) => {
    const name = topic.join(' ');
    const text = TOPICS[name];
    if (text) {
      cmd.io.out(text);
      return;
    }
    let command = await cmd.commandTree();
    for (const part of topic) {
      const sub = command.commands.find((c) => c.name() === part || c.aliases().includes(part));
      if (!sub) {
        cmd.io.err(`svc: no help for '${name}'. Topics: ${Object.keys(TOPICS).join(', ')}, or a command name.\n`);
        return EXIT.usage;
      }
      command = sub;
    }
    cmd.io.out(command.helpInformation());
    if (topic.length === 0) cmd.io.out(`\nTopics: svc help exit-codes, svc help environment\n`);
  },
});
