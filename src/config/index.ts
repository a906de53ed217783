/** Assistant configuration (default assistant, models, endpoints, prices, agent slots per assistant) and the safe view of the server's configuration. */
export {
  type AssistantLaunch,
  type AssistantName,
  type AssistantsConfig,
  AssistantsConfigSchema,
  AssistantsConfigService,
  type AssistantsPatch,
  AssistantsPatchSchema,
  type TokenPrice,
} from './assistants.js';
export { openAssistantsConfigRepository } from './repository.js';
export { AGENT_KINDS, type AgentKind, AssistantNameSchema, AssistantsViewSchema, type AssistantsView } from './schema.js';
export { assistantsView } from './acp-assistants.js';
export { ACP_PRESETS, type AcpPreset, presetApiHosts, presetCommand, presetLaunch, presetOwnEnv, presetStateDirs, type PresetLaunch } from './acp-presets.js';
export { callCost } from './token-price.js';
export { type ConfigView, configView } from './view.js';

// Only with SVC_DATABASE_URL: loaded on first use, so the file store never loads pg (docs/decisions.md, "Footprint").
export const loadPostgresConfig = () => import('./postgres-repository.js');
