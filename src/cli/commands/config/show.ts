import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';
import { formatSize } from '../../../shared/size.js';

const formatPrice = (price: { input: number; cachedInput?: number; output: number }) =>
  `$${price.input} in, $${price.output} out${price.cachedInput !== undefined ? `, $${price.cachedInput} cached in` : ''} per million tokens`;

/** `svc config show`: the safe subset of the configuration (never an env value or secret). */
export default defineCommand({
  run: async (cmd) => {
    const config = await cmd.client().config.get();
    if (cmd.globals.json) return printJson(cmd.io, config);
    const rows: Array<[string, string]> = [
      ['default assistant', config.defaultAssistant],
      ...Object.entries(config.assistants).flatMap(([name, a]): Array<[string, string]> => [
        // An acp assistant: what it runs, and the names (never the values) of what its agent is given.
        ...(a.kind === 'acp' ? [[`${name} acp command`, `${a.command?.join(' ') ?? ''}${a.preset ? ` (preset ${a.preset})` : ''}`] as [string, string]] : []),
        ...(a.envNames?.length ? [[`${name} env`, a.envNames.join(', ')] as [string, string]] : []),
        [`${name} model`, a.model ?? '(agent default)'],
        [`${name} permissions`, `${a.permissions ?? 'read'} (conversations)`],
        // The URL and the name of the key's variable; the key itself never reaches the API.
        ...(a.baseUrl ? [[`${name} endpoint`, `${a.baseUrl}${a.apiKeyEnv ? ` (key from $${a.apiKeyEnv})` : ''}`] as [string, string]] : []),
        // What prices a call that reports tokens but no cost (docs/decisions.md, "Spend cap").
        ...(a.pricePerMillionTokens ? [[`${name} price`, formatPrice(a.pricePerMillionTokens)] as [string, string]] : []),
        ...(a.maxMemoryBytes ? [[`${name} max memory`, `${formatSize(a.maxMemoryBytes)} (conversation replies)`] as [string, string]] : []),
      ]),
      ['host', config.host],
      ['port', config.port === null ? '(automatic)' : String(config.port)],
      ['home', config.home],
      ['max concurrent runs', String(config.maxConcurrentRuns)],
      ['memory budget', config.memoryBudgetBytes === null ? '(none: /proc/meminfo unreadable)' : formatSize(config.memoryBudgetBytes)],
      ['agent first-event timeout', `${config.agentFirstEventTimeoutMs} ms`],
      ['log level', config.logLevel],
      ['version', config.version],
    ];
    await printTable(cmd.io, ['setting', 'value'], rows);
  },
});
