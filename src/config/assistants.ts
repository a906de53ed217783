import { DEFAULT_CONVERSATION_PERMISSIONS, type Permissions } from '../shared/permissions.js';
import { DomainError } from '../shared/errors.js';
import type { Store } from '../store/index.js';
import { openAssistantsConfigRepository, ASSISTANTS_KEY, type AssistantsConfigRepository, type StoredAssistants } from './repository.js';
import { type AssistantConfig, type AssistantName, type AssistantsConfig, type AssistantsPatch, type TokenPrice } from './schema.js';
import { acpLaunchOf, patchedAssistants, type AssistantLaunch } from './acp-assistants.js';

export { type AssistantLaunch } from './acp-assistants.js';
export {
  AssistantConfigSchema,
  AssistantsConfigSchema,
  AssistantsPatchSchema,
  type AssistantConfig,
  type AssistantName,
  type AssistantsConfig,
  type AssistantsPatch,
  type TokenPrice,
} from './schema.js';

/** Out of the box a conversation's agent only reads: changing code is what a workflow's nodes are for. */
const ASSISTANT_DEFAULTS: AssistantConfig = { model: null, permissions: DEFAULT_CONVERSATION_PERMISSIONS };

const DEFAULTS = { defaultAssistant: 'claude' } as const;

/** The configuration a stored record (or none) amounts to: the defaults under what was saved, per assistant and field. */
function withDefaults(stored: StoredAssistants | undefined): AssistantsConfig {
  // claude and codex always, and each acp assistant saved: the defaults under what was saved.
  const names = new Set(['claude', 'codex', ...Object.keys(stored?.assistants ?? {})]);
  const assistants: AssistantsConfig['assistants'] = {};
  for (const name of names) assistants[name] = { ...ASSISTANT_DEFAULTS, ...stored?.assistants?.[name] };
  return { defaultAssistant: stored?.defaultAssistant ?? DEFAULTS.defaultAssistant, assistants };
}

/** An assistant's configuration; `unknown_assistant` when none has that name. */
function configOf(config: AssistantsConfig, name: AssistantName): AssistantConfig {
  const found = Object.hasOwn(config.assistants, name) ? config.assistants[name] : undefined;
  if (!found) {
    throw new DomainError(
      'unknown_assistant',
      `No assistant is named '${name}': the assistants are ${Object.keys(config.assistants).join(', ')}; add an ACP one with PATCH /api/config/assistants {"${name}": {"kind": "acp", "preset": …, "command": […]}} (svc config set-acp)`,
    );
  }
  return found;
}

/**
 * Reads and updates assistant settings through their repository (the file store's `config`
 * collection, or the shared database: docs/scaling.md). Every read asks the repository, so with
 * a shared database a PATCH through one server is what every server's next agent start uses.
 */
export class AssistantsConfigService {
  constructor(private readonly repository: AssistantsConfigRepository) {}

  static async open(store: Store): Promise<AssistantsConfigService> {
    return new AssistantsConfigService(await openAssistantsConfigRepository(store));
  }

  async get(): Promise<AssistantsConfig> {
    return withDefaults(await this.repository.get());
  }

  /**
   * The assistant a node or conversation that names none uses. With the methods below, what the run
   * engine (`AssistantChoice`) and the conversations (`ConversationAssistants`) ask of the
   * configuration: the service is given to them as it is.
   */
  async defaultAssistant(): Promise<AssistantName> {
    return (await this.get()).defaultAssistant;
  }

  async modelOf(name: AssistantName): Promise<string | null> {
    return configOf(await this.get(), name).model;
  }

  /** What the assistant may do in a conversation that says nothing itself (docs/contract.md, "Permissions"). */
  async permissionsOf(name: AssistantName): Promise<Permissions> {
    return configOf(await this.get(), name).permissions ?? DEFAULT_CONVERSATION_PERMISSIONS;
  }

  /** How many of the assistant's agents may run at once on a server, or null for only `SVC_MAX_CONCURRENT_AGENTS`. */
  async maxConcurrentOf(name: AssistantName): Promise<number | null> {
    // Asked by the agent slots for whatever name a call gives: an unknown one has no limit of its own.
    return (await this.get()).assistants[name]?.maxConcurrent ?? null;
  }

  /** How the assistant's agent is started: claude, codex, or an acp command (`unknown_assistant` when none has the name). */
  async launchOf(name: AssistantName): Promise<AssistantLaunch> {
    return acpLaunchOf(name, configOf(await this.get(), name));
  }

  /** Rejects with `unknown_assistant` unless the assistant is configured (a conversation names one before it is used). */
  async assertKnown(name: AssistantName): Promise<void> {
    configOf(await this.get(), name);
  }

  /** A conversation reply's agent's memory limit in bytes (`maxMemory`), or null for none. */
  async maxMemoryOf(name: AssistantName): Promise<number | null> {
    return configOf(await this.get(), name).maxMemoryBytes ?? null;
  }

  /** What the assistant's tokens cost, for calls that report no cost (docs/decisions.md, "Spend cap"); null when not configured. */
  async priceOf(name: AssistantName): Promise<TokenPrice | null> {
    return configOf(await this.get(), name).pricePerMillionTokens ?? null;
  }

  /** The assistant's model endpoint (docs/contract.md, "Model endpoints"), or null for the agent's own default. */
  async endpointOf(name: AssistantName): Promise<{ baseUrl: string; apiKeyEnv: string | null } | null> {
    const { baseUrl, apiKeyEnv } = configOf(await this.get(), name);
    return baseUrl ? { baseUrl, apiKeyEnv: apiKeyEnv ?? null } : null;
  }

  /**
   * Merges `patch` per assistant and field into the stored configuration. A compare-and-set: when
   * another writer (another server on the database) changed it since it was read, it is read again
   * and the patch merged into that, so concurrent patches of different fields both stay.
   */
  async update(patch: AssistantsPatch): Promise<AssistantsConfig> {
    for (;;) {
      const stored = await this.repository.get();
      const current = withDefaults(stored);
      const next = { ...current, assistants: patchedAssistants(current.assistants, patch, ASSISTANT_DEFAULTS) };
      const chosen = Object.entries(patch).findLast(([, value]) => value?.default === true)?.[0];
      if (chosen) next.defaultAssistant = chosen;
      // The default removed: claude again, rather than a name that starts nothing.
      if (next.assistants[next.defaultAssistant] === undefined) next.defaultAssistant = DEFAULTS.defaultAssistant;
      if (await this.repository.replaceIf(stored, { id: ASSISTANTS_KEY, ...next })) return next;
    }
  }
}
