/**
 * What may stand in an arithmetic context of a script that takes values from outside. Bash
 * evaluates a variable's value there as an expression, recursively, and an array index inside it
 * (`a[$(touch x)]`) runs command substitutions — in `$((…))`, `((…))`, `$[…]`, `let`, `declare -i`
 * values, `[[ a -eq b ]]` operands, array indexes and `${v:offset:length}` alike. So only numbers,
 * operators, and variables that hold nothing but numbers (names.ts) may stand there.
 */

import { OUTSIDE_VARIABLES } from '../run-variables.js';
import { OUTPUT_REF_SOURCE } from '../output-ref.js';
import type { ArithmeticKind, Span } from './outline.js';

const OUTSIDE: ReadonlySet<string> = new Set(OUTSIDE_VARIABLES);

export type ArithmeticProblem =
  | { readonly kind: 'splice'; readonly ref: string; readonly offset: number }
  | { readonly kind: 'outside'; readonly name: string }
  | { readonly kind: 'name'; readonly name: string; readonly reason: string }
  | { readonly kind: 'expansion'; readonly text: string };

/** Where an arithmetic context is, for messages. */
export const ARITHMETIC_PLACES: Record<ArithmeticKind, string> = {
  'arithmetic-expansion': '$(( … ))',
  'old-arithmetic': '$[ … ]',
  'arithmetic-command': '(( … ))',
  for: 'for (( … ))',
  subscript: 'an array index',
  substring: 'the offset or length of ${v:offset:length}',
  let: 'let',
  integer: "the value of an integer variable (declare -i, or bash's own RANDOM, OPTIND, …)",
  comparison: '[[ … -eq … ]] (and -ne, -lt, -le, -gt, -ge)',
};

const NUMBER = /^(?:0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/**
 * The problems of the arithmetic text in `span`. `notNumeric` says why a name may hold something
 * other than a number; `numberAt`, when given, clears a name where bash's parse shows a number. Scanning stops at the first command substitution: what follows is another
 * script, and one problem says enough.
 */
export function arithmeticProblems(
  span: Span,
  notNumeric: (name: string) => string | undefined,
  /** Whether the name read at `offset` holds a number there (bash's parse says so: taint.ts), whatever `notNumeric` says. */
  numberAt?: (name: string, offset: number) => boolean,
): ArithmeticProblem[] {
  const problems: ArithmeticProblem[] = [];
  const { source, end } = span;
  const checkName = (name: string, offset: number) => {
    if (numberAt?.(name, offset)) return;
    if (OUTSIDE.has(name)) problems.push({ kind: 'outside', name });
    else {
      const reason = notNumeric(name);
      if (reason !== undefined) problems.push({ kind: 'name', name, reason });
    }
  };
  const ref = new RegExp(OUTPUT_REF_SOURCE, 'y');
  let i = span.start;
  while (i < end) {
    const rest = source.slice(i, Math.min(end, i + 300));
    const c = rest[0] as string;
    ref.lastIndex = i;
    const splice = c === '$' ? ref.exec(source) : null;
    if (splice) {
      problems.push({ kind: 'splice', ref: splice[0], offset: i });
      i += splice[0].length;
      continue;
    }
    if (c === '$') {
      if (rest.startsWith('$((')) {
        i += 3; // a nested $((…)): its contents are read here too
        continue;
      }
      if (rest.startsWith('$(')) {
        problems.push({ kind: 'expansion', text: /^\$\([^)]*\)?/.exec(rest)?.[0] ?? '$(' });
        return problems;
      }
      const braced = /^\$\{(#?)([A-Za-z_][A-Za-z0-9_]*)([}[])/.exec(rest);
      const special = /^\$\{?[#?$!]\}?/.exec(rest); // numbers: counts, statuses, process ids
      const plain = /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
      if (braced) {
        if (braced[1] === '') checkName(braced[2] as string, i); // ${#v} is a length
        i += braced[0].length - (braced[3] === '[' ? 1 : 0);
      } else if (special) i += special[0].length;
      else if (plain) {
        checkName(plain[1] as string, i);
        i += plain[0].length;
      } else {
        const text = /^\$(?:\{[^}]*\}?|[0-9@*-])?/.exec(rest)?.[0] as string;
        problems.push({ kind: 'expansion', text });
        i += text.length;
      }
      continue;
    }
    if (c === '`') {
      problems.push({ kind: 'expansion', text: /^`[^`]*`?/.exec(rest)?.[0] ?? '`' });
      return problems;
    }
    const token = NUMBER.exec(rest)?.[0] ?? NAME.exec(rest)?.[0];
    if (token && NAME.test(token)) checkName(token, i);
    i += token ? token.length : 1;
  }
  return problems;
}
