/**
 * Naming a record by less than its whole id (docs/contract.md, "HTTP"): an exact
 * id, or a prefix of one, and for kinds that have them a name. One piece of code for every kind
 * (runs, workspaces), so a short run id and a workspace prefix are counted, matched and refused
 * alike; each repository finds the candidates its own way (a scan of a small file, or SQL) and
 * hands them here to pick from.
 */

import { DomainError, type ErrorCode } from './errors.js';

/** What tells one kind's short ids apart, and how a miss is answered. */
export interface ShortIdKind {
  /** Every id of the kind starts with this (`newId('run')` → `run_`), so these characters tell nothing apart. */
  readonly idPrefix: string;
  /** Fewest characters after `idPrefix` a prefix must give: `run_` alone would otherwise name any single record. */
  readonly minChars: number;
  /** `run`, `workspace`: the words of the messages. */
  readonly noun: string;
  readonly plural: string;
  readonly notFound: ErrorCode;
  readonly ambiguous: ErrorCode;
  /** How a candidate is shown where several match (its id alone by default). */
  readonly label?: (record: never) => string;
}

/** The prefix to look records up by, or `undefined` when `ref` is too short to be one. */
export function shortIdPrefix(kind: ShortIdKind, ref: string): string | undefined {
  const distinctive = ref.startsWith(kind.idPrefix) ? ref.slice(kind.idPrefix.length) : ref;
  return distinctive.length >= kind.minChars ? ref : undefined;
}

/**
 * The record `ref` names: `exact` (the id itself) if there is one, else the single candidate
 * (records whose id starts with the prefix `shortIdPrefix` allowed, or whose name is `ref`). Several
 * candidates are the kind's `ambiguous` error listing them (at most ten, in `details.matches` by id
 * and in the message with their labels); none is its `notFound` error.
 */
export function pickOne<R extends { id: string }>(kind: ShortIdKind, ref: string, exact: R | undefined, candidates: readonly R[]): R {
  if (exact) return exact;
  const unique = [...new Map(candidates.map((record) => [record.id, record])).values()];
  if (unique.length === 1) return unique[0]!;
  if (unique.length > 1) {
    const shown = unique.slice(0, 10);
    const label = kind.label as ((record: R) => string) | undefined;
    const more = unique.length > shown.length ? '; …' : '';
    const tail = label ? `: ${shown.map(label).join('; ')}${more}. Give more of the id.` : '; give more of the id.';
    throw new DomainError(kind.ambiguous, `'${ref}' matches ${unique.length} ${kind.plural}${tail}`, { matches: shown.map((record) => record.id) });
  }
  const tooShort = shortIdPrefix(kind, ref) === undefined ? ` A short id needs at least ${kind.minChars} characters after '${kind.idPrefix}'.` : '';
  throw new DomainError(kind.notFound, `No ${kind.noun} '${ref}'.${tooShort}`);
}
