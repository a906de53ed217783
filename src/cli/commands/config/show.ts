import { configView, type ConfigView } from '../../../config/view.js';
import { viaServerOrStore } from '../../command-context.js';
import type { CommandRun } from '../../program.js';
import { printJson, printTable } from '../../output.js';

const show: CommandRun = async (cmd) => {
  const config = await viaServerOrStore<ConfigView>(cmd, {
    online: (client) => client.request('GET', '/api/config'),
    offline: async (ctx) => configView(ctx),
  });
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
};

export default show;
