/**
 * "Did you mean …?" for names a person typed: unknown keys, node ids, enum values. Typos are the
 * usual cause of these errors, so naming the likely intended word saves a trip to the docs.
 */

/** Edit distance (insert, delete, substitute, and swap of neighbours — the commonest typo). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const cell = (i: number, j: number): number => d[i * cols + j] as number;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, cell(i - 2, j - 2) + 1);
      d[i * cols + j] = best;
    }
  }
  return cell(a.length, b.length);
}

/**
 * The candidate closest to `input`, if it is close enough to be a plausible typo: at most a third
 * of the longer word's length (and at least 1, at most 3 edits), fewer edits than the shorter word
 * has letters (so 'b' does not suggest 'a'), compared case-insensitively.
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(needle.length, candidate.length) / 3)));
    if (Math.abs(candidate.length - needle.length) > limit) continue;
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance <= limit && distance < Math.min(needle.length, candidate.length) && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean 'x'?)`, or "" when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const match = closestMatch(input, candidates);
  return match === undefined ? '' : ` (did you mean '${match}'?)`;
}
