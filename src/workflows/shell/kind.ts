/**
 * What a value of a bash script may hold (taint.ts), from safest to least safe: a number; text the
 * script or svc chose; text no one can vouch for; a value from outside.
 */

export type Kind = 'number' | 'clean' | 'unknown' | 'outside';
const RANK: Record<Kind, number> = { number: 0, clean: 1, unknown: 2, outside: 3 };
export const join = (a: Kind, b: Kind): Kind => (RANK[a] >= RANK[b] ? a : b);
/** Whether a value of this kind holds only what the script or svc chose. */
export const isTrusted = (kind: Kind): boolean => kind === 'number' || kind === 'clean';
