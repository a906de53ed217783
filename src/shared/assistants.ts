/** The agents svc knows how to drive (docs/decisions.md, Agents): one list for workflows, the configuration and the API. */
export const ASSISTANT_NAMES = ['claude', 'codex'] as const;
export type AssistantName = (typeof ASSISTANT_NAMES)[number];
