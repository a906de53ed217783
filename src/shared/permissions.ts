/**
 * What an agent may do in its working directory (docs/decisions.md, Agents): the levels, the same
 * words in workflows, conversations, the API and the CLI. How each CLI is told lives with the
 * agents (agents/permissions.ts).
 */
export const PERMISSIONS = ['read', 'edit', 'full'] as const;
export type Permissions = (typeof PERMISSIONS)[number];

/** Workflow nodes edit unless told otherwise; conversations read (config/assistants.ts). */
export const DEFAULT_NODE_PERMISSIONS: Permissions = 'edit';
export const DEFAULT_CONVERSATION_PERMISSIONS: Permissions = 'read';
