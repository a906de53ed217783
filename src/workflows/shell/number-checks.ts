/**
 * The recognised number checks of a bash script, read from bash's own parse: after one, a variable
 * holds digits or the script (or function) has ended, so it may stand in arithmetic (taint.ts).
 *
 *     [[ $v =~ ^[0-9]+$ ]] || exit 1            (or `|| { echo …; exit 1; }`; `return` in a function)
 *     if ! [[ $v =~ ^[0-9]+$ ]]; then …; exit 1; fi
 *
 * The pattern a bare regex anchored at both ends that matches digits and signs only (names.ts,
 * isNumberPattern): quoted, it would match as a string anywhere in the value.
 */

import type { Node } from 'web-tree-sitter';
import { isNumberPattern } from './names.js';
import { childrenOf, commandNameOf, inFunction } from './syntax.js';

/** A recognised number check: the variable it covers, and the stretch of the script it covers (the statements after it in its block). */
export interface Check {
  readonly name: string;
  readonly statement: Node;
  readonly scope: { readonly start: number; readonly end: number };
}

/** Statements bash runs one after another: what follows a check in one of these runs only when the check passed. */
const SEQUENCES = new Set(['program', 'do_group', 'compound_statement', 'subshell', 'if_statement', 'elif_clause', 'else_clause', 'case_item']);

/** Whether a script can have redefined what ends it: a function named `exit` or `return`, an alias, `enable`. */
export function endingsRedefined(nodes: readonly Node[]): boolean {
  for (const node of nodes) {
    if (node.type === 'function_definition' && ['exit', 'return'].includes(node.childForFieldName('name')?.text ?? '')) return true;
    if (node.type === 'command' && ['alias', 'enable', 'shopt'].includes(commandNameOf(node) ?? '')) return true;
    if (node.type === 'variable_assignment' && node.text.startsWith('BASH_ALIASES')) return true;
  }
  return false;
}

/** `exit` — or `return`, in a function — alone or last in `{ …; exit N; }` or a then-branch. */
function ends(node: Node | null | undefined, inFunctionBody: boolean): boolean {
  if (!node) return false;
  if (node.type === 'command') return commandNameOf(node) === 'exit' || (inFunctionBody && commandNameOf(node) === 'return');
  if (node.type === 'compound_statement' && node.firstChild?.type === '{') return ends(childrenOf(node, true).at(-1), inFunctionBody);
  return false;
}

/** The variable `[[ $v =~ ^[0-9]+$ ]]` matches, when the pattern only lets numbers through. */
function matchedVariable(test: Node | undefined): string | undefined {
  if (test?.type !== 'test_command' || test.firstChild?.type !== '[[') return undefined;
  const match = test.firstNamedChild;
  if (match?.type !== 'binary_expression' || match.childForFieldName('operator')?.text !== '=~') return undefined;
  const pattern = match.childForFieldName('right');
  if (pattern?.type !== 'regex' || !isNumberPattern(pattern.text)) return undefined;
  let subject = match.childForFieldName('left');
  if (subject?.type === 'string' && subject.namedChildCount === 1) subject = subject.firstNamedChild;
  const name = subject?.type === 'simple_expansion' || (subject?.type === 'expansion' && subject.namedChildCount === 1) ? subject.firstNamedChild : null;
  return name?.type === 'variable_name' ? name.text : undefined;
}

/** The variable a statement checks, or undefined. */
function checkedBy(statement: Node): string | undefined {
  const inside = inFunction(statement);
  if (statement.type === 'list') {
    const [test, operator, ending] = childrenOf(statement);
    return operator?.type === '||' && ends(ending, inside) ? matchedVariable(test) : undefined;
  }
  if (statement.type === 'if_statement') {
    // `if ! [[ … ]]; then …; exit 1; fi`, with no other branch.
    const parts = childrenOf(statement, true);
    const condition = parts[0];
    if (condition?.type !== 'negated_command' || parts.some((part) => part.type === 'elif_clause' || part.type === 'else_clause')) return undefined;
    return ends(parts.at(-1), inside) ? matchedVariable(condition.firstNamedChild ?? undefined) : undefined;
  }
  return undefined;
}

/** The recognised number checks of a script, each with the statements it covers. */
export function numberChecks(nodes: readonly Node[]): Check[] {
  const checks: Check[] = [];
  for (const statement of nodes) {
    const block = statement.parent;
    if (!block || !SEQUENCES.has(block.type)) continue;
    // `check & next`: the check runs beside what follows, not before it.
    if (statement.nextSibling?.type === '&') continue;
    const name = checkedBy(statement);
    if (name === undefined) continue;
    // In an if's then-branch the check covers that branch only, not an elif or else after it.
    const branchEnd =
      block.type === 'if_statement'
        ? childrenOf(block).find((part) => part.startIndex >= statement.endIndex && /^(?:elif_clause|else_clause|fi)$/.test(part.type))
        : undefined;
    checks.push({ name, statement, scope: { start: statement.endIndex, end: branchEnd?.startIndex ?? block.endIndex } });
  }
  return checks;
}
