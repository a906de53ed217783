/**
 * Where a value the script did not choose stands, read from bash's own parse: the second half of
 * the positive policy (taint.ts is the first; docs/decisions.md, "A positive policy"). A value
 * from outside — and anything not known to hold only what the script chose — may stand only where
 * bash treats it as data:
 *
 * - a quoted argument of a command that does not run it (`printf '%s' "$v"`, `git log -- "$v"`);
 * - the value of a plain assignment (`x=$v`, `local x="$v"`), a `case` subject or pattern, a
 *   `for` list (quoted), either side of `[[ a == b ]]` and `[[ a =~ b ]]`;
 * - a here-document, a here-string or a redirected file fed to a program as data;
 * - an operand of `${…}` (a default, a pattern), when the whole stands in such a place.
 *
 * Everything else is refused unless the value passed a recognised number check (number-checks.ts):
 * arithmetic (bare names in it too), an indexed array's subscript, command names, unquoted words,
 * variable names (`declare "$v"`, `read`, `unset`, `${!v}`, `-v`), and any place this file does not
 * know: the default is no. What commands do with their words — the code or file a program runs, its
 * options, its standard input — is command-rules.ts's part.
 */

import type { Node } from 'web-tree-sitter';
import { argumentPlace, codeInput, commandProblems, pipedCode, writeProblems } from './command-rules.js';
import { isTrusted, type Kind } from './kind.js';
import { snippet } from './outline.js';
import { CODE_VARIABLES, PATH_VARIABLES } from './reading.js';
import type { Taint } from './taint.js';
import { childrenOf, declarationFlags, inArithmetic, isArithmeticCommand, placeOf, testOf } from './syntax.js';
import { arithmetic, unknownPlace, unquoted, VALUES, type Refuse } from './placement-words.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function placementProblems(taint: Taint, script: string): string[] {
  const problems = new Set<string>();
  const refuse: Refuse = (node, what, why) => problems.add(`${placeOf(node)}: ${what}, and ${why}`);
  const associative = (name: string, at: Node) => taint.isAssociative(name, at);
  for (const node of taint.nodes) {
    if (VALUES.has(node.type)) {
      const kind = taint.kindOfWord(node);
      if (node.type === 'expansion') expansionForm(node, taint, refuse);
      if (kind === 'number' || (node.type === 'raw_string' && kind !== 'outside')) continue;
      // Text the script chose may stand anywhere but in arithmetic, which takes numbers only.
      const where = isTrusted(kind) ? (inArithmetic(node, associative) ? arithmetic() : undefined) : placeProblem(node, kind, taint);
      if (where !== undefined) refuse(node, describe(node, kind, taint, script), where);
    } else if ((node.type === 'variable_name' || node.type === 'word') && IDENTIFIER.test(node.text) && isBareName(node)) {
      if (!inArithmetic(node, associative)) continue;
      const kind = taint.kindOf(node.text, node);
      if (kind !== 'number')
        refuse(
          node,
          taint.why(node.text),
          `bash evaluates its value there as an arithmetic expression, running any $(…) in it; check that it is a number first: [[ $v =~ ^[0-9]+$ ]] || exit 1`,
        );
    } else if (node.type === 'command') {
      commandProblems(node, taint, refuse);
      pipedCode(node, taint, refuse);
    } else if (node.type === 'declaration_command') {
      declarationWords(node, refuse);
    }
  }
  writeProblems(taint, refuse);
  return [...problems];
}

/** `declare $f v`: an option or a name computed, which svc cannot read (`-n`, `-i`, `-a` change what a value does). */
function declarationWords(node: Node, refuse: Refuse): void {
  const builtin = snippet(node.text.split(/\s/)[0] ?? 'declare');
  for (const child of childrenOf(node, true)) {
    // Plain names, plain options and assignments tree-sitter read as such are what bash reads too.
    if (child.type === 'variable_assignment' || child.type === 'variable_name' || (child.type === 'word' && /^[-+][A-Za-z]+$/.test(child.text))) continue;
    refuse(
      child,
      `${snippet(child.text)} in ${builtin}`,
      `its options and names must be plain text: a computed or quoted one may make a value a name, a number or an array, and an index in a name is evaluated`,
    );
  }
}

/** A name standing alone (in arithmetic, `i` of `a[i]`), not the name inside `$v`, `${v}` or an assignment's target. */
function isBareName(node: Node): boolean {
  const parent = node.parent;
  if (
    !parent ||
    ['simple_expansion', 'expansion', 'variable_assignment', 'for_statement', 'declaration_command', 'unset_command', 'command_name'].includes(parent.type)
  )
    return false;
  return !(
    parent.type === 'subscript' &&
    parent.childForFieldName('name')?.id === node.id &&
    parent.parent?.type !== 'arithmetic_expansion' &&
    !inArithmetic(parent)
  );
}

/** `${!v}` and `${v@P}`: a name, and a prompt, made from the value. */
function expansionForm(node: Node, taint: Taint, refuse: (node: Node, what: string, why: string) => void): void {
  const parts = childrenOf(node);
  const subject = childrenOf(node, true)[0];
  const name = subject?.type === 'subscript' ? subject.childForFieldName('name')?.text : subject?.text;
  if (name === undefined) return;
  const kind = taint.kindOf(name, node);
  if (isTrusted(kind)) return;
  if (parts[1]?.type === '!' && subject?.type !== 'subscript' && !parts.some((part) => part.type === '@' || part.type === '*'))
    refuse(
      node,
      taint.why(name),
      'bash uses its value as the name of another variable, evaluating an index in it and running any $(…) there; use an associative array: ${map[$key]}',
    );
  const operator = parts.findIndex((part) => part.type === '@');
  if (operator !== -1 && parts[operator + 1]?.text === 'P') refuse(node, taint.why(name), 'bash expands ${…@P} like a prompt, running any $(…) in the value');
}

/** What the value is, for messages; `script` has `$<id>.output` where the parser read a variable. */
function describe(node: Node, kind: Kind, taint: Taint, script: string): string {
  const text = snippet(script.slice(node.startIndex, node.endIndex));
  const holds = kind === 'outside' ? 'holds a value from outside' : 'may hold what the script did not choose';
  if (node.type === 'raw_string') return `${text} holds a node's output`;
  if (node.type === 'simple_expansion') return text.endsWith('.output') ? `${text} holds a node's output` : taint.why(node.text.slice(1));
  if (node.type === 'expansion') return `${text} ${holds}`;
  return `the output of ${text} ${kind === 'outside' ? 'reads a value from outside' : 'is not text the script chose'}`;
}

/** Why the value at `node` may not stand where it is, or undefined when bash treats it as data there. */
function placeProblem(node: Node, kind: Kind, taint: Taint): string | undefined {
  // svc writes each `$<id>.output` as a quoted expansion, wherever it stands (references.ts); a
  // process substitution is one path, never split.
  let quoted = node.type === 'raw_string' || node.type === 'process_substitution' || taint.splices.has(node.startIndex);
  let child = node;
  for (let at = node.parent; at; child = at, at = at.parent) {
    switch (at.type) {
      case 'string':
      case 'translated_string':
        quoted = true;
        continue;
      case 'concatenation':
        continue;
      case 'array':
        if (!quoted && kind === 'outside') return unquoted(node);
        continue;
      case 'expansion':
        // An operand of ${…}: part of the whole, which is checked where it stands; a substring's offset is arithmetic.
        return inArithmetic(child) ? arithmetic() : undefined;
      case 'subscript':
        if (at.childForFieldName('index')?.id !== child.id) return undefined;
        return taint.isAssociative(at.childForFieldName('name')?.text ?? '', at) ? undefined : arithmetic('an index of an indexed array is arithmetic');
      case 'arithmetic_expansion':
      case 'c_style_for_statement':
        return arithmetic();
      case 'compound_statement':
        return isArithmeticCommand(at) ? arithmetic() : unknownPlace();
      case 'binary_expression':
      case 'unary_expression':
      case 'postfix_expression':
      case 'ternary_expression':
      case 'parenthesized_expression':
        return expressionPlace(at, child, quoted);
      case 'test_command':
        return at.firstChild?.type === '[' && !quoted ? unquoted(node) : undefined;
      case 'case_statement':
      case 'case_item':
        return undefined;
      case 'for_statement':
        return !quoted && kind === 'outside' ? unquoted(node) : undefined;
      case 'variable_assignment':
        return at.childForFieldName('value')?.id === child.id ? assignmentPlace(at, taint) : unknownPlace();
      case 'declaration_command':
        return `${snippet(at.text.split(/\s/)[0] ?? 'declare')} reads it as a variable name or an assignment, evaluating an index in it and running any $(…) there: write NAME="$value"`;
      case 'unset_command':
        return 'unset reads it as a variable name, evaluating an index in it and running any $(…) there';
      case 'command_name':
        return 'bash runs it as a command name: name the command literally, and pass values as arguments';
      case 'heredoc_body':
      case 'herestring_redirect':
      case 'file_redirect':
        if (at.type === 'file_redirect' && !quoted && kind === 'outside') return unquoted(node);
        return codeInput(at, taint);
      case 'heredoc_redirect':
        return undefined;
      case 'command':
        return at.childForFieldName('name')?.id === child.id ? unknownPlace() : argumentPlace(at, child, quoted, kind, taint);
      default:
        return unknownPlace();
    }
  }
  return unknownPlace();
}

/** An operand of `[[ … ]]` or `[ … ]`, or of arithmetic. */
function expressionPlace(expression: Node, child: Node, quoted: boolean): string | undefined {
  const test = testOf(expression);
  if (!test || inArithmetic(child)) return arithmetic();
  const operator = expression.childForFieldName('operator')?.text ?? childrenOf(expression)[0]?.text;
  if (operator === '-v' || operator === '-R') return `${operator} reads it as a variable name, evaluating an index in it and running any $(…) there`;
  // `[[ … ]]` splits nothing; `[` is a command, whose unquoted operands split into its operators.
  if (test.firstChild?.type === '[' && !quoted) return unquoted(child);
  return undefined;
}

/** The value of an assignment: data, unless bash runs or evaluates what the variable holds. */
function assignmentPlace(assignment: Node, taint: Taint): string | undefined {
  const target = assignment.childForFieldName('name');
  const name = (target?.type === 'subscript' ? target.childForFieldName('name')?.text : target?.text) ?? '';
  if (CODE_VARIABLES.has(name) || PATH_VARIABLES.has(name) || name === 'BASH_CMDS') return `bash runs or loads what ${name} holds`;
  if (taint.facts.integers.has(name)) return arithmetic(`${name} is an integer variable, so bash evaluates what is assigned to it as an arithmetic expression`);
  if (taint.facts.namerefs.has(name)) return `${name} is a nameref (declare -n): what is assigned to it names a variable, evaluating an index in it`;
  // A declaration re-reads a string as a compound assignment when it makes (or meets) an array: `local -a a="$v"`, `a=(); declare a="$v"`.
  const declaration = assignment.parent?.type === 'declaration_command' ? declarationFlags(assignment.parent) : undefined;
  if (declaration !== undefined && (/[aA]/.test(declaration) || taint.facts.arrays.has(name)) && assignment.childForFieldName('value')?.type !== 'array')
    return `${name} is an array, and a declaration re-reads a string assigned to one as a compound assignment, evaluating an index in it and running any $(…) there: assign the array with ( … )`;
  return undefined;
}
