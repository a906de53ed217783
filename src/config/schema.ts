import * as z from 'zod';
import { PERMISSIONS } from '../shared/permissions.js';
import { parseSize, SIZE_HINT } from '../shared/size.js';

import { ASSISTANT_NAMES, type AssistantName } from '../shared/assistants.js';

export { ASSISTANT_NAMES, type AssistantName };

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

export const AssistantConfigSchema = z.object({
  model: z.string().nullable().describe("Model passed as --model; null means the agent's own default."),
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
  defaultAssistant: z.enum(ASSISTANT_NAMES),
  assistants: z.object({ claude: AssistantConfigSchema, codex: AssistantConfigSchema }),
});
export type AssistantsConfig = z.infer<typeof AssistantsConfigSchema>;

/** `PATCH /api/config/assistants` body: only known names, each with at least one field to change. */
export const AssistantsPatchSchema = z
  .record(
    z.string(),
    z
      .strictObject({
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
      .refine((value) => Object.keys(value).length > 0, 'give model, baseUrl, apiKeyEnv, permissions, maxConcurrent, maxMemory or pricePerMillionTokens'),
  )
  .refine((value) => Object.keys(value).length > 0, 'name at least one assistant, e.g. { "claude": { "model": "sonnet" } }');
export type AssistantsPatch = z.infer<typeof AssistantsPatchSchema>;
