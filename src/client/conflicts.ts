/**
 * The conflict forecast in words, one way for every front end (docs/contract.md, "Workspaces"):
 * `svc runs show`, the approval prompt and the run page say `conflicts with main in math.js` or
 * `touches src/a.ts like run_…`.
 */

import type { ConflictEntry, WorkspaceConflicts } from './types.js';

/**
 * A path as it can stand in a sentence: one with a control character (a newline…), a comma, or
 * spaces at its ends is quoted as JSON, so a hostile file name can neither break the line nor pass
 * for two names.
 */
export function shownPath(path: string): string {
  return /[\u0000-\u001f\u007f,"]|^\s|\s$/.test(path) ? JSON.stringify(path) : path;
}

/** `a.ts, b.ts`, `and more` when the answer was cut. */
export function shownFiles(entry: Pick<ConflictEntry, 'files' | 'truncated'>): string {
  return `${entry.files.map(shownPath).join(', ')}${entry.truncated ? ' and more' : ''}`;
}

/** The other side of an entry naming `runId`, as a person reads it: a run id, or the target branch's name. */
function otherSide(entry: ConflictEntry, runId: string, target: string): string {
  const other = entry.sides[0] === runId ? entry.sides[1] : entry.sides[0];
  return other === 'target' ? target : other;
}

/** One phrase per entry naming `runId`: conflicts first, then the files it changes like another side. */
export function conflictPhrases(runId: string, forecast: Pick<WorkspaceConflicts, 'entries' | 'target'>): string[] {
  const mine = forecast.entries.filter((entry) => entry.sides.includes(runId));
  return [
    ...mine.filter((e) => e.conflict).map((e) => `conflicts with ${otherSide(e, runId, forecast.target)} in ${shownFiles(e)}`),
    ...mine.filter((e) => !e.conflict).map((e) => `touches ${shownFiles(e)} like ${otherSide(e, runId, forecast.target)}`),
  ];
}

/** The phrases in one line (`''` when the run collides with nothing). */
export function conflictLine(runId: string, forecast: Pick<WorkspaceConflicts, 'entries' | 'target'>): string {
  return conflictPhrases(runId, forecast).join('; ');
}
