import type { PermissionOption, RequestPermissionResponse, ToolKind } from '@agentclientprotocol/sdk';
import type { Permissions } from '../shared/permissions.js';

/**
 * What each permission level lets an ACP agent do, by the kind of its tool call (docs/contract.md,
 * "Permissions"): `read` looks — reads, searches, thinks, fetches; `edit` also changes the
 * directory and runs commands, as Claude Code's and Codex's `edit` do in svc; `full` anything,
 * including what the agent could not say the kind of (`other`, `switch_mode`, none).
 */
const READ_KINDS: readonly ToolKind[] = ['read', 'search', 'think', 'fetch'];
const EDIT_KINDS: readonly ToolKind[] = [...READ_KINDS, 'edit', 'delete', 'move', 'execute'];

export function acpAllows(permissions: Permissions, kind: ToolKind | null | undefined): boolean {
  if (permissions === 'full') return true;
  if (!kind) return false;
  return (permissions === 'edit' ? EDIT_KINDS : READ_KINDS).includes(kind);
}

/**
 * svc's answer to one `session/request_permission`: a one-time allow, never an "always" — every
 * later call asks again, so the level holds for each. A rejection prefers `reject_once`, else any
 * reject; an agent that offers no one-time allow is refused rather than allowed for good.
 * `allowed` says what the answer amounts to.
 */
export function permissionAnswer(options: readonly PermissionOption[], allow: boolean): { response: RequestPermissionResponse; allowed: boolean } {
  const pick = (kinds: readonly PermissionOption['kind'][]) => kinds.map((kind) => options.find((option) => option.kind === kind)).find(Boolean);
  const chosen = allow ? (pick(['allow_once']) ?? pick(['reject_once', 'reject_always'])) : pick(['reject_once', 'reject_always']);
  // No option to choose at all: only "cancelled" is left, which the agent takes as no.
  if (!chosen) return { response: { outcome: { outcome: 'cancelled' } }, allowed: false };
  return { response: { outcome: { outcome: 'selected', optionId: chosen.optionId } }, allowed: chosen.kind === 'allow_once' };
}
