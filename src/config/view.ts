import { defaultMemoryBudgetBytes } from '../processes/index.js';
import type { Settings } from '../shared/settings.js';
import type { AssistantsConfigService } from './assistants.js';
import { assistantsView } from './acp-assistants.js';

/** What the view reads: the settings, the assistant configuration and, once listening, the address. */
export interface ConfigSources {
  settings: Settings;
  assistants: Pick<AssistantsConfigService, 'get'>;
  version: string;
  listening?: { host: string; port: number };
}

/** The safe subset of configuration shown by `GET /api/config` and `svc config show`: no env values, no secrets. */
export async function configView(ctx: ConfigSources) {
  return {
    // An acp assistant's `env` by its names: a value may be a credential.
    ...assistantsView(await ctx.assistants.get()),
    host: ctx.listening?.host ?? ctx.settings.host,
    port: ctx.listening?.port ?? ctx.settings.port ?? null,
    home: ctx.settings.home,
    maxConcurrentRuns: ctx.settings.maxConcurrentRuns,
    // What bounds the memory of the nodes and replies running at once (docs/contract.md, "Memory admission"); null: nothing could be read to set it.
    memoryBudgetBytes: ctx.settings.memoryBudgetBytes ?? defaultMemoryBudgetBytes(),
    agentFirstEventTimeoutMs: ctx.settings.agentFirstEventTimeoutMs,
    logLevel: ctx.settings.logLevel,
    version: ctx.version,
  };
}
export type ConfigView = Awaited<ReturnType<typeof configView>>;
