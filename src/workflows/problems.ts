/**
 * One validation problem, before it becomes the error string a person reads. Kept structured so
 * that the place can be turned into `line:col` (from the YAML) once, at the end, and only for the
 * problems there are — never for every node of a valid workflow.
 */

export type PathSegment = string | number;

export interface Problem {
  /** Where the problem is, as named in the message: `nodes[1].depends_on`. Empty for the whole document. */
  readonly path: readonly PathSegment[];
  readonly message: string;
  /** A more precise place to point `line:col` at (e.g. the offending list entry); defaults to `path`. */
  readonly at?: readonly PathSegment[];
  /** Point at this key of the mapping at `at ?? path` rather than at a value (unknown and duplicate keys). */
  readonly key?: string;
  /** A source offset known directly (YAML syntax errors). */
  readonly offset?: number;
}

/** `nodes[1].depends_on` */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

/** `nodes[1].depends_on: unknown node 'tset'`, or just the message for the whole document. */
export function describeProblem(problem: Problem): string {
  return problem.path.length === 0 ? problem.message : `${formatPath(problem.path)}: ${problem.message}`;
}

/** A value quoted for a message, cut short so a pasted blob does not flood the output. */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `'${text.length > 40 ? `${text.slice(0, 39)}…` : text}'`;
}

/** What a person would call a value they wrote: `a list`, `a string ('x')`, `nothing (null)`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `a string (${quoteValue(value)})`;
    case 'number':
      return Number.isInteger(value) ? `a whole number (${value})` : `a number (${value})`;
    case 'boolean':
      return String(value);
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

/**
 * An approval written as its text (`approval: "ship?"`): the form it takes, with the text the
 * author wrote when it is short enough to copy (a JSON string is YAML too); else zod's own words.
 */
export function approvalFormHint(code: string, input: unknown): string | undefined {
  if (code !== 'invalid_type' || typeof input !== 'string') return undefined;
  return `expected a mapping, got ${describeValue(input)}: write approval: { message: ${input.length <= 60 ? JSON.stringify(input) : '"…"'} }`;
}
