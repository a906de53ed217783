/**
 * Where in a bash script's quoting a `$<id>.output` reference sits, and which of those places svc
 * refuses a reference in.
 *
 * `$<id>.output` in a bash node is rewritten to a quoted expansion of the variable holding the
 * output (docs/decisions.md, "Values as data"): bare `"${V}"`, inside "…" `${V}`, inside '…' the
 * quotes closed around `"${V}"` and reopened. So the renderer needs the quoting context of each
 * reference; comments are left alone; the contexts where svc does not rewrite a reference (a
 * here-document, backticks, `${…}`, arithmetic, `$'…'`, nesting it does not follow) are refused by
 * validation, with what to write instead. What the shell later does with the *value* (arithmetic,
 * `eval`, `bash -c`) is check.ts's part.
 */

export type ShellContext =
  | 'word' // plain shell syntax: a quoted word is safe as-is
  | 'double-quoted'
  | 'single-quoted'
  | 'comment'
  | 'escaped' // after a backslash: the shell sees a literal '$'
  | 'heredoc'
  | 'backtick'
  | 'parameter-expansion'
  | 'arithmetic'
  | 'ansi-c-quoted'
  | 'unchecked'; // nested deeper than the scanner follows

/** Contexts in which svc does not rewrite a reference; validation refuses references there. */
export const UNSAFE_SHELL_CONTEXTS: ReadonlySet<ShellContext> = new Set([
  'heredoc',
  'backtick',
  'parameter-expansion',
  'arithmetic',
  'ansi-c-quoted',
  'unchecked',
]);

/** The advice for arithmetic, shared with check.ts: the only safe way is to check the value is a number first. */
export function checkNumberFirst(value: string): string {
  return `check that it is a number after copying it: v=${value}; [[ $v =~ ^[0-9]+$ ]] || exit 1 — then use v`;
}

/** Why a reference cannot stand in `context`, and what to write instead (for messages). */
export function unsafeContextAdvice(context: ShellContext, ref: string): string {
  switch (context) {
    case 'heredoc':
      return `${ref} cannot be substituted safely inside a here-document; pipe it instead: printf '%s\\n' ${ref} | …`;
    case 'backtick':
      return `${ref} cannot be substituted safely inside backticks; use $(…) instead`;
    case 'parameter-expansion':
      return `${ref} cannot be substituted safely inside \${…}; assign it to a variable first: v=${ref}`;
    case 'arithmetic':
      return `${ref} cannot be used in arithmetic: bash evaluates the value as an expression and runs any $(…) in it; ${checkNumberFirst(ref)}`;
    case 'ansi-c-quoted':
      return `${ref} cannot be substituted safely inside $'…'; write it outside the quotes`;
    case 'unchecked':
      return `${ref} sits in quoting nested too deeply for svc to check; simplify the script around it`;
    default:
      return `${ref} is rewritten to a quoted expansion of the variable holding it`;
  }
}
