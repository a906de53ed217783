import { z } from 'zod';
import { badRequest } from '../shared/errors.js';
import type { Collection, Store } from '../store/index.js';

/** The agents svc knows how to drive (docs/decisions.md, Agents). */
export const ASSISTANT_NAMES = ['claude', 'codex'] as const;
export type AssistantName = (typeof ASSISTANT_NAMES)[number];

/** The name of an environment variable (never its value). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const AssistantConfigSchema = z.object({
  model: z.string().nullable().describe("Model passed as --model; null means the agent's own default."),
  baseUrl: z.string().nullable().optional().describe("A model server speaking the Anthropic (claude) or OpenAI (codex) API; null: the agent's own default"),
  apiKeyEnv: z.string().nullable().optional().describe('The name of the server environment variable holding its key (the key is never stored or shown)'),
});
export type AssistantConfig = z.infer<typeof AssistantConfigSchema>;

const httpUrl = z
  .string()
  .trim()
  .refine((text) => {
    try {
      return ['http:', 'https:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  }, 'baseUrl must be an http:// or https:// URL');

export const AssistantsConfigSchema = z.object({
  defaultAssistant: z.enum(ASSISTANT_NAMES),
  assistants: z.object({ claude: AssistantConfigSchema, codex: AssistantConfigSchema }),
});
export type AssistantsConfig = z.infer<typeof AssistantsConfigSchema>;

/** `PATCH /api/config/assistants` body: only known names, each with a non-empty model. */
export const AssistantsPatchSchema = z
  .record(
    z.string(),
    z
      .strictObject({
        model: z.string().trim().min(1, 'model must be a non-empty string').optional(),
        baseUrl: httpUrl.nullable().optional().describe('model server URL; null removes the endpoint'),
        apiKeyEnv: z.string().regex(ENV_NAME, 'apiKeyEnv names an environment variable (letters, digits, _)').nullable().optional(),
      })
      .refine((value) => Object.keys(value).length > 0, 'give model, baseUrl or apiKeyEnv'),
  )
  .refine((value) => Object.keys(value).length > 0, 'name at least one assistant, e.g. { "claude": { "model": "sonnet" } }');
export type AssistantsPatch = z.infer<typeof AssistantsPatchSchema>;

interface StoredAssistants extends AssistantsConfig {
  id: 'assistants';
}

const DEFAULTS: AssistantsConfig = {
  defaultAssistant: 'claude',
  assistants: { claude: { model: null }, codex: { model: null } },
};

/** Reads and updates assistant settings, persisted in the store's `config` collection. */
export class AssistantsConfigService {
  private constructor(private readonly collection: Collection<StoredAssistants>) {}

  static async open(store: Store): Promise<AssistantsConfigService> {
    return new AssistantsConfigService(await store.collection<StoredAssistants>('config'));
  }

  get(): AssistantsConfig {
    const stored = this.collection.get('assistants');
    return {
      defaultAssistant: stored?.defaultAssistant ?? DEFAULTS.defaultAssistant,
      assistants: { ...DEFAULTS.assistants, ...stored?.assistants },
    };
  }

  modelOf(name: AssistantName): string | null {
    return this.get().assistants[name].model;
  }

  /** The assistant's model endpoint (docs/decisions.md, Agents), or null for the agent's own default. */
  endpointOf(name: AssistantName): { baseUrl: string; apiKeyEnv: string | null } | null {
    const { baseUrl, apiKeyEnv } = this.get().assistants[name];
    return baseUrl ? { baseUrl, apiKeyEnv: apiKeyEnv ?? null } : null;
  }

  async update(patch: AssistantsPatch): Promise<AssistantsConfig> {
    const unknown = Object.keys(patch).filter((name) => !(ASSISTANT_NAMES as readonly string[]).includes(name));
    if (unknown.length > 0) {
      throw badRequest(
        'invalid_request',
        `Unknown assistant ${unknown.map((n) => `'${n}'`).join(', ')}; known assistants are ${ASSISTANT_NAMES.join(', ')}.`,
        unknown.map((name) => ({ path: name, message: 'unknown assistant' })),
      );
    }
    const current = this.get();
    const next: AssistantsConfig = { ...current, assistants: { ...current.assistants } };
    for (const [name, value] of Object.entries(patch)) {
      const before = next.assistants[name as AssistantName];
      const merged: AssistantConfig = { ...before };
      if (value.model !== undefined) merged.model = value.model;
      if (value.baseUrl !== undefined) merged.baseUrl = value.baseUrl;
      if (value.apiKeyEnv !== undefined) merged.apiKeyEnv = value.apiKeyEnv;
      next.assistants[name as AssistantName] = merged;
    }
    await this.collection.put({ id: 'assistants', ...next });
    return next;
  }
}
