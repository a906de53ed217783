import { DomainError } from '../shared/errors.js';
import { isBuiltinAssistant, type AssistantName } from '../shared/assistants.js';
import { parseSize } from '../shared/size.js';
import { presetCommand, type AcpPreset } from './acp-presets.js';
import type { AgentKind, AssistantConfig, AssistantsConfig, AssistantsPatch, AssistantsView } from './schema.js';

/** How an assistant's agent starts: a built-in CLI, or an ACP command with its preset and given values. */
export type AssistantLaunch =
  | { kind: Exclude<AgentKind, 'acp'> }
  | { kind: 'acp'; name: AssistantName; command: string[]; env: Record<string, string>; preset: AcpPreset | null; apiKeyEnv: string | null };

/** What the configuration says of how `name` starts (its record is the configuration's, found). */
export function acpLaunchOf(name: AssistantName, config: AssistantConfig): AssistantLaunch {
  if (config.kind !== 'acp') return { kind: name === 'codex' ? 'codex' : 'claude' };
  // The key variable holds with or without a `baseUrl`: a preset gives its value to the agent (GEMINI_API_KEY).
  return { kind: 'acp', name, command: config.command ?? [], env: config.env ?? {}, preset: config.preset ?? null, apiKeyEnv: config.apiKeyEnv ?? null };
}

const ACP_ONLY = ['kind', 'preset', 'command', 'env'] as const;

/** Whether `command` is what `preset` fills in (a preset changed then replaces it). */
const isPresetCommand = (command: readonly string[], preset: AcpPreset | null | undefined) =>
  preset !== null && preset !== undefined && JSON.stringify(command) === JSON.stringify(presetCommand(preset));

const invalid = (name: string, message: string) => new DomainError('invalid_request', message, [{ path: name, message }]);

/**
 * The assistants after `patch` (docs/contract.md, "ACP agents"): each named one merged field by
 * field; a new name is an ACP assistant, which needs `kind: "acp"` and a command (given, or its
 * preset's); `null` removes an ACP assistant. claude and codex are built in: they take no ACP
 * field and cannot be removed. Refusals are `invalid_request` naming the assistant.
 */
export function patchedAssistants(current: AssistantsConfig['assistants'], patch: AssistantsPatch, defaults: AssistantConfig): AssistantsConfig['assistants'] {
  const next = { ...current };
  for (const [name, value] of Object.entries(patch)) {
    const before = Object.hasOwn(current, name) ? current[name] : undefined;
    if (value === null) {
      if (isBuiltinAssistant(name)) throw invalid(name, `${name} is built in and cannot be removed`);
      if (!before) throw invalid(name, `No assistant is named '${name}': there is nothing to remove`);
      delete next[name];
      continue;
    }
    if (isBuiltinAssistant(name)) {
      const acpFields = ACP_ONLY.filter((field) => value[field] !== undefined);
      if (acpFields.length > 0) throw invalid(name, `${name} is built in: ${acpFields.join(', ')} ${acpFields.length === 1 ? 'is' : 'are'} for acp assistants`);
    } else if (!before && value.kind !== 'acp') {
      throw invalid(name, `No assistant is named '${name}': to add one, give "kind": "acp" with a "command" or a "preset" (gemini, opencode)`);
    }
    const merged: AssistantConfig = { ...(before ?? { ...defaults, kind: 'acp' }) };
    if (value.preset !== undefined) merged.preset = value.preset;
    if (value.command !== undefined) merged.command = value.command;
    // A new preset brings its command, unless the command was the user's own rather than the old preset's.
    else if (value.preset && (!before?.command || isPresetCommand(before.command, before.preset))) merged.command = presetCommand(value.preset);
    if (value.env !== undefined) {
      if (value.env === null) delete merged.env;
      else merged.env = value.env;
    }
    if (value.model !== undefined) merged.model = value.model;
    if (value.baseUrl !== undefined) merged.baseUrl = value.baseUrl;
    if (value.apiKeyEnv !== undefined) merged.apiKeyEnv = value.apiKeyEnv;
    if (value.permissions !== undefined) merged.permissions = value.permissions;
    if (value.maxConcurrent !== undefined) merged.maxConcurrent = value.maxConcurrent;
    if (value.pricePerMillionTokens !== undefined) merged.pricePerMillionTokens = value.pricePerMillionTokens;
    if (value.maxMemory !== undefined) merged.maxMemoryBytes = value.maxMemory === null ? null : parseSize(value.maxMemory);
    if (merged.kind === 'acp' && !merged.command?.length)
      throw invalid(name, `The acp assistant '${name}' needs a command (e.g. "command": ["gemini", "--acp"]) or a preset (gemini, opencode)`);
    next[name] = merged;
  }
  return next;
}

/** The configuration as the API shows it: an acp assistant's `env` by its names, never its values. */
export function assistantsView(config: AssistantsConfig): AssistantsView {
  const assistants: AssistantsView['assistants'] = Object.fromEntries(
    Object.entries(config.assistants).map(([name, { env, ...rest }]) => [name, env ? { ...rest, envNames: Object.keys(env).sort() } : rest]),
  );
  return { defaultAssistant: config.defaultAssistant, assistants };
}
