import type { NodeState } from './types.js';

/** Outputs stored on the run and carried by events are capped; artifacts keep the whole text. */
export const OUTPUT_CAP_BYTES = 64 * 1024;

export function freshNodeState(): NodeState {
  return { status: 'pending', startedAt: null, finishedAt: null, durationMs: null, costUsd: null, output: null, error: null, attempts: 0 };
}

/** Cuts a string to at most `cap` UTF-8 bytes without splitting a character. */
export function capUtf8(text: string, cap = OUTPUT_CAP_BYTES): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= cap) return { text, truncated: false };
  // Each UTF-16 unit is at least one byte: the first `cap` units hold the first `cap` bytes, and
  // only they are encoded (an output may be 16 MiB, its record copy 64 KiB).
  const cut = Buffer.from(text.slice(0, cap)).subarray(0, cap).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD at the end; drop it.
  return { text: cut.replace(/\uFFFD$/, ''), truncated: true };
}

export function sumCost(states: Iterable<NodeState>): number | null {
  let total: number | null = null;
  for (const state of states) if (typeof state.costUsd === 'number') total = (total ?? 0) + state.costUsd;
  return total;
}
