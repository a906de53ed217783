/**
 * The assistants' names (docs/decisions.md, "ACP agents"): one rule for workflows, the configuration
 * and the API. `claude` and `codex` are built in; any other name is an ACP assistant the
 * configuration defines (`PATCH /api/config/assistants`), so a workflow may name one before it is
 * configured, and the run says so when it is not.
 */
export const BUILTIN_ASSISTANTS = ['claude', 'codex'] as const;
export type BuiltinAssistant = (typeof BUILTIN_ASSISTANTS)[number];

/** A name as a workflow, a conversation or the configuration spells it: lowercase, like a workflow's. */
export const ASSISTANT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const ASSISTANT_NAME_HINT = 'a lowercase name of letters, digits, _ and - (at most 32), e.g. gemini';

export type AssistantName = string;

export const isBuiltinAssistant = (name: string): name is BuiltinAssistant => (BUILTIN_ASSISTANTS as readonly string[]).includes(name);
