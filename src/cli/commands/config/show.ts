import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';

/** `svc config show`: the safe subset of the configuration (never an env value or secret). */
export default defineCommand({
  run: async (cmd) => {
    const config = await cmd.client().config.get();
    if (cmd.globals.json) return printJson(cmd.io, config);
    const rows: Array<[string, string]> = [
      ['default assistant', config.defaultAssistant],
      ...Object.entries(config.assistants).map(([name, a]): [string, string] => [`${name} model`, a.model ?? '(agent default)']),
      ['host', config.host],
      ['port', config.port === null ? '(automatic)' : String(config.port)],
      ['home', config.home],
      ['max concurrent runs', String(config.maxConcurrentRuns)],
      ['agent first-event timeout', `${config.agentFirstEventTimeoutMs} ms`],
      ['log level', config.logLevel],
      ['version', config.version],
    ];
    await printTable(cmd.io, ['setting', 'value'], rows);
  },
});
