import { DEFAULT_CONVERSATION_PERMISSIONS, type Permissions } from '../shared/permissions.js';
import { DomainError } from '../shared/errors.js';
import { parseSize } from '../shared/size.js';
import type { Store } from '../store/index.js';
import { openAssistantsConfigRepository, ASSISTANTS_KEY, type AssistantsConfigRepository, type StoredAssistants } from './repository.js';
import { ASSISTANT_NAMES, type AssistantConfig, type AssistantName, type AssistantsConfig, type AssistantsPatch, type TokenPrice } from './schema.js';

export {
  ASSISTANT_NAMES,
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

const DEFAULTS: AssistantsConfig = {
  defaultAssistant: 'claude',
  assistants: { claude: ASSISTANT_DEFAULTS, codex: ASSISTANT_DEFAULTS },
};

/** The configuration a stored record (or none) amounts to: the defaults under what was saved, per assistant and field. */
function withDefaults(stored: StoredAssistants | undefined): AssistantsConfig {
  return {
    defaultAssistant: stored?.defaultAssistant ?? DEFAULTS.defaultAssistant,
    assistants: {
      claude: { ...DEFAULTS.assistants.claude, ...stored?.assistants?.claude },
      codex: { ...DEFAULTS.assistants.codex, ...stored?.assistants?.codex },
    },
  };
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
    return (await this.get()).assistants[name].model;
  }

  /** What the assistant may do in a conversation that says nothing itself (docs/contract.md, "Permissions"). */
  async permissionsOf(name: AssistantName): Promise<Permissions> {
    return (await this.get()).assistants[name].permissions ?? DEFAULT_CONVERSATION_PERMISSIONS;
  }

  /** How many of the assistant's agents may run at once on a server, or null for only `SVC_MAX_CONCURRENT_AGENTS`. */
  async maxConcurrentOf(name: AssistantName): Promise<number | null> {
    return (await this.get()).assistants[name].maxConcurrent ?? null;
  }

  /** A conversation reply's agent's memory limit in bytes (`maxMemory`), or null for none. */
  async maxMemoryOf(name: AssistantName): Promise<number | null> {
    return (await this.get()).assistants[name].maxMemoryBytes ?? null;
  }

  /** What the assistant's tokens cost, for calls that report no cost (docs/decisions.md, "Spend cap"); null when not configured. */
  async priceOf(name: AssistantName): Promise<TokenPrice | null> {
    return (await this.get()).assistants[name].pricePerMillionTokens ?? null;
  }

  /** The assistant's model endpoint (docs/contract.md, "Model endpoints"), or null for the agent's own default. */
  async endpointOf(name: AssistantName): Promise<{ baseUrl: string; apiKeyEnv: string | null } | null> {
    const { baseUrl, apiKeyEnv } = (await this.get()).assistants[name];
    return baseUrl ? { baseUrl, apiKeyEnv: apiKeyEnv ?? null } : null;
  }

  /**
   * Merges `patch` per assistant and field into the stored configuration. A compare-and-set: when
   * another writer (another server on the database) changed it since it was read, it is read again
   * and the patch merged into that, so concurrent patches of different fields both stay.
   */
  async update(patch: AssistantsPatch): Promise<AssistantsConfig> {
    const unknown = Object.keys(patch).filter((name) => !(ASSISTANT_NAMES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      throw new DomainError(
        'invalid_request',
        `Unknown assistant ${unknown.map((n) => `'${n}'`).join(', ')}; known assistants are ${ASSISTANT_NAMES.join(', ')}.`,
        unknown.map((name) => ({ path: name, message: 'unknown assistant' })),
      );
    }
    for (;;) {
      const stored = await this.repository.get();
      const next = merged(withDefaults(stored), patch);
      if (await this.repository.replaceIf(stored, { id: ASSISTANTS_KEY, ...next })) return next;
    }
  }
}

function merged(current: AssistantsConfig, patch: AssistantsPatch): AssistantsConfig {
  const next: AssistantsConfig = { ...current, assistants: { ...current.assistants } };
  for (const [name, value] of Object.entries(patch)) {
    const before = next.assistants[name as AssistantName];
    const merged: AssistantConfig = { ...before };
    if (value.model !== undefined) merged.model = value.model;
    if (value.baseUrl !== undefined) merged.baseUrl = value.baseUrl;
    if (value.apiKeyEnv !== undefined) merged.apiKeyEnv = value.apiKeyEnv;
    if (value.permissions !== undefined) merged.permissions = value.permissions;
    if (value.maxConcurrent !== undefined) merged.maxConcurrent = value.maxConcurrent;
    if (value.pricePerMillionTokens !== undefined) merged.pricePerMillionTokens = value.pricePerMillionTokens;
    if (value.maxMemory !== undefined) merged.maxMemoryBytes = value.maxMemory === null ? null : parseSize(value.maxMemory);
    next.assistants[name as AssistantName] = merged;
  }
  return next;
}
