import * as z from 'zod';
import { PERMISSIONS } from '../shared/permissions.js';
import { parseSize, SIZE_HINT } from '../shared/size.js';

import { ASSISTANT_NAME_HINT, ASSISTANT_NAME_PATTERN, type AssistantName } from '../shared/assistants.js';
import { ACP_PRESETS } from './acp-presets.js';

export { type AssistantName };

/** How svc drives an assistant: Claude Code's and Codex's own output formats, or the Agent Client Protocol (docs/decisions.md, "ACP agents"). */
export const AGENT_KINDS = ['claude', 'codex', 'acp'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** An assistant's name wherever it is given: a workflow names one the same way (shared/assistants.ts). */
export const AssistantNameSchema = z.string().regex(ASSISTANT_NAME_PATTERN, `an assistant's name is ${ASSISTANT_NAME_HINT}`);

/** The name of an environment variable (never its value). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * What an assistant's tokens cost, in USD per million (docs/decisions.md, Runs: "Spend cap"): how
 * svc prices an agent that reports tokens but no cost (codex). `cachedInput` is the price of input
 * tokens served from the provider's cache (part of `input` as codex counts them); without it they
 * cost what other input does.
 */
export const TokenPriceSchema = z.object({
  input: z.number().nonnegative().finite().describe('USD per million input tokens'),
  cachedInput: z.number().nonnegative().finite().optional().describe('USD per million cached input tokens; default: the input price'),
  output: z.number().nonnegative().finite().describe('USD per million output tokens'),
});
export type TokenPrice = z.infer<typeof TokenPriceSchema>;

const EnvValuesSchema = z.record(z.string().regex(ENV_NAME, 'env names environment variables (letters, digits, _)'), z.string());

export const AssistantConfigSchema = z.object({
  kind: z.enum(AGENT_KINDS).optional().describe('acp: a command speaking the Agent Client Protocol on stdio; absent: the built-in claude or codex'),
  preset: z
    .enum(ACP_PRESETS)
    .nullable()
    .optional()
    .describe('an acp assistant: the agent it is (gemini, opencode), which fills in its command and environment'),
  command: z.array(z.string().min(1)).min(1).optional().describe('an acp assistant: the executable and its arguments'),
  env: EnvValuesSchema.optional().describe('an acp assistant: values given to its agent (never shown back; GET /api/config lists their names)'),
  model: z.string().nullable().describe("Model the agent is asked to use; null means the agent's own default."),
  baseUrl: z.string().nullable().optional().describe("A model server speaking the Anthropic (claude) or OpenAI (codex) API; null: the agent's own default"),
  apiKeyEnv: z.string().nullable().optional().describe('The name of the server environment variable holding its key (the key is never stored or shown)'),
  permissions: z
    .enum(PERMISSIONS)
    .optional()
    .describe("What the assistant may do when it answers a conversation (read, edit, full); a conversation's own wins. Default read"),
  maxConcurrent: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('At most this many of its agent processes at once on a server (within SVC_MAX_CONCURRENT_AGENTS); null or absent: no limit of its own'),
  maxMemoryBytes: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe("A conversation reply's agent whose processes pass this many bytes is stopped (memory_exceeded); null or absent: no limit"),
  pricePerMillionTokens: TokenPriceSchema.nullable()
    .optional()
    .describe(
      "What its tokens cost (USD per million): prices an agent call that reports tokens but no cost (codex); null or absent: such a call's cost is unknown (the run's costPartial)",
    ),
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
  defaultAssistant: AssistantNameSchema,
  assistants: z.record(z.string(), AssistantConfigSchema).describe('claude and codex, and each configured acp assistant by its name'),
});
export type AssistantsConfig = z.infer<typeof AssistantsConfigSchema>;

/** An assistant as the API shows it: `env` by its names only, since a value may be a credential. */
export const AssistantViewSchema = AssistantConfigSchema.omit({ env: true }).extend({
  envNames: z.array(z.string()).optional().describe('an acp assistant: the names of the values its agent is given'),
});
export const AssistantsViewSchema = z.object({ defaultAssistant: AssistantNameSchema, assistants: z.record(z.string(), AssistantViewSchema) });
export type AssistantsView = z.infer<typeof AssistantsViewSchema>;

/** `PATCH /api/config/assistants` body: only known names, each with at least one field to change. */
export const AssistantsPatchSchema = z
  .record(
    z.string(),
    z
      .strictObject({
        default: z
          .literal(true, 'default is true: the assistant nodes and conversations use when they name none')
          .optional()
          .describe('true: make it the default assistant (of nodes and conversations that name none)'),
        kind: z.literal('acp', "kind is 'acp' (claude and codex are built in)").optional().describe('acp: add (or keep) an assistant speaking ACP'),
        preset: z
          .enum(ACP_PRESETS, { error: `preset is one of ${ACP_PRESETS.join(', ')}` })
          .nullable()
          .optional()
          .describe(`an acp assistant's preset (${ACP_PRESETS.join(', ')}): its command, its own variables, its endpoint's variables`),
        command: z
          .array(z.string().min(1, 'command holds non-empty strings'), { error: 'command is an array: the executable, then its arguments' })
          .min(1, 'command names at least the executable')
          .optional()
          .describe('an acp assistant: the executable, then its arguments, e.g. ["gemini", "--acp"]'),
        env: EnvValuesSchema.nullable().optional().describe('an acp assistant: values its agent gets (replaces the ones before; null removes them)'),
        model: z.string().trim().min(1, 'model must be a non-empty string').optional(),
        baseUrl: httpUrl.nullable().optional().describe('model server URL; null removes the endpoint'),
        apiKeyEnv: z.string().regex(ENV_NAME, 'apiKeyEnv names an environment variable (letters, digits, _)').nullable().optional(),
        permissions: z.enum(PERMISSIONS).optional().describe('what the assistant may do in conversations: read, edit or full'),
        maxConcurrent: z
          .number()
          .int('maxConcurrent must be a whole number')
          .positive('maxConcurrent must be at least 1')
          .nullable()
          .optional()
          .describe("at most this many of its agents at once on a server; null removes the assistant's own limit"),
        maxMemory: z
          .string()
          .nullable()
          .optional()
          .refine((value) => value == null || parseSize(value) !== null, `maxMemory must be a size (${SIZE_HINT})`)
          .describe("a conversation reply's agent stopped past this size, e.g. 2GB; null removes the limit"),
        pricePerMillionTokens: z
          .strictObject({
            input: z.number().nonnegative('input must be 0 or more (USD per million tokens)').finite(),
            cachedInput: z.number().nonnegative('cachedInput must be 0 or more (USD per million tokens)').finite().optional(),
            output: z.number().nonnegative('output must be 0 or more (USD per million tokens)').finite(),
          })
          .nullable()
          .optional()
          .describe('USD per million tokens { input, cachedInput?, output }, for an agent that reports no cost (codex); null removes it'),
      })
      .refine(
        (value) => Object.keys(value).length > 0,
        'give default, kind, preset, command, env, model, baseUrl, apiKeyEnv, permissions, maxConcurrent, maxMemory or pricePerMillionTokens',
      )
      // null removes an acp assistant (the service refuses it for claude and codex).
      .nullable(),
  )
  .refine((value) => Object.keys(value).length > 0, 'name at least one assistant, e.g. { "claude": { "model": "sonnet" } }')
  // Checked here rather than as the record's key schema, whose refusal zod words as "Invalid key in record".
  .superRefine((value, ctx) => {
    for (const name of Object.keys(value))
      if (!ASSISTANT_NAME_PATTERN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: `an assistant's name is ${ASSISTANT_NAME_HINT}` });
  });
export type AssistantsPatch = z.infer<typeof AssistantsPatchSchema>;
