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
 * Everything else is refused unless the value passed a recognised number check (taint.ts):
 * arithmetic (bare names in it too), an indexed array's subscript, command names, unquoted words,
 * variable names (`declare "$v"`, `read`, `unset`, `${!v}`, `-v`), the code or file a program runs
 * (`eval`, `bash -c`, `source`, sed and awk programs, `ssh`, … — commands.ts knows them), code a
 * program reads from its standard input, assignments to variables bash runs (`PS4`, `BASH_ENV`)
 * or evaluates (`declare -i`), and any place this file does not know: the default is no.
 */

import type { Node } from 'web-tree-sitter';
import { readCommand } from './commands.js';
import { snippet, type ShellWord, type SimpleCommand } from './outline.js';
import { CODE_VARIABLES, PATH_VARIABLES, type CommandReading } from './reading.js';
import { isTrusted, type Kind } from './kind.js';
import type { Taint } from './taint.js';
import { argumentsOf, childrenOf, declarationFlags, inArithmetic, isArithmeticCommand, literalOf, nodesBelow, placeOf, testOf } from './syntax.js';

const VALUES = new Set(['simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'raw_string']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CHECK_FIRST = 'check that it is a number first: [[ $v =~ ^[0-9]+$ ]] || exit 1';
const DATA_PLACES =
  'a value from outside may stand only where bash treats it as data: a quoted argument, the value of an assignment, a case subject, a here-document fed to a program';

/** What svc's reading of commands (commands.ts) says of a command the parser found, by node. */
interface Reading {
  readonly reading: CommandReading;
  readonly nodeOf: Map<ShellWord, Node>;
}

export function placementProblems(taint: Taint, script: string): string[] {
  const problems: string[] = [];
  const readings = new Map<number, Reading>();
  const readingOf = (command: Node): Reading => {
    let known = readings.get(command.id);
    if (!known) readings.set(command.id, (known = readCommandNode(command, script)));
    return known;
  };
  const refuse = (node: Node, what: string, why: string) => problems.push(`${placeOf(node)}: ${what}, and ${why}`);

  for (const node of taint.nodes) {
    if (VALUES.has(node.type)) {
      const kind = taint.kindOfWord(node);
      if (node.type === 'expansion') expansionForm(node, taint, refuse);
      if (kind === 'number' || (node.type === 'raw_string' && kind !== 'outside')) continue;
      // Text the script chose may stand anywhere but in arithmetic, which takes numbers only.
      const where = isTrusted(kind) ? (inArithmetic(node, taint.associative) ? arithmetic() : undefined) : placeProblem(node, kind, taint, readingOf);
      if (where !== undefined) refuse(node, describe(node, kind, taint, script), where);
    } else if ((node.type === 'variable_name' || node.type === 'word') && IDENTIFIER.test(node.text) && isBareName(node)) {
      if (!inArithmetic(node, taint.associative)) continue;
      const kind = taint.kindOf(node.text, node);
      if (kind !== 'number')
        refuse(node, taint.why(node.text), `bash evaluates its value there as an arithmetic expression, running any $(…) in it; ${CHECK_FIRST}`);
    } else if (node.type === 'command') {
      commandProblems(node, taint, readingOf(node), refuse);
    }
  }
  return problems;
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
function placeProblem(node: Node, kind: Kind, taint: Taint, readingOf: (command: Node) => Reading): string | undefined {
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
        return taint.associative.has(at.childForFieldName('name')?.text ?? '') ? undefined : arithmetic('an index of an indexed array is arithmetic');
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
        return expressionPlace(at, child, quoted, kind);
      case 'test_command':
        return at.firstChild?.type === '[' && !quoted && kind === 'outside' ? unquoted(node) : undefined;
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
      case 'file_redirect': {
        if (at.type === 'file_redirect' && !quoted && kind === 'outside') return unquoted(node);
        const command = redirectedCommand(at);
        const runner = command ? readingOf(command).reading.stdinCode[0]?.runner : undefined;
        if (runner !== undefined && !isOutputRedirect(at))
          return `${runner} reads its program from there: what a value from outside puts there runs as code; pass values as arguments or environment variables`;
        return undefined;
      }
      case 'heredoc_redirect':
        return undefined;
      case 'command':
        return at.childForFieldName('name')?.id === child.id ? unknownPlace() : argumentPlace(at, child, quoted, kind, readingOf(at));
      default:
        return unknownPlace();
    }
  }
  return unknownPlace();
}

const arithmetic = (what = 'bash evaluates it there as an arithmetic expression') => `${what}, running any $(…) in it; ${CHECK_FIRST}`;
const unquoted = (node: Node) =>
  `unquoted, bash splits it into words and file names, and a word may become an option or an operator: quote it (${snippet(`"${node.text.replace(/^"|"$/g, '')}"`)})`;
const unknownPlace = () => `svc cannot tell how bash uses it there, and ${DATA_PLACES}`;

/** An operand of `[[ … ]]` or `[ … ]`, or of arithmetic. */
function expressionPlace(expression: Node, child: Node, quoted: boolean, kind: Kind): string | undefined {
  const test = testOf(expression);
  if (!test || inArithmetic(child)) return arithmetic();
  const operator = expression.childForFieldName('operator')?.text ?? childrenOf(expression)[0]?.text;
  if (operator === '-v' || operator === '-R') return `${operator} reads it as a variable name, evaluating an index in it and running any $(…) there`;
  // `[[ … ]]` splits nothing; `[` is a command, whose unquoted operands split.
  if (test.firstChild?.type === '[' && !quoted && kind === 'outside') return unquoted(child);
  return undefined;
}

/** The value of an assignment: data, unless bash runs or evaluates what the variable holds. */
function assignmentPlace(assignment: Node, taint: Taint): string | undefined {
  const target = assignment.childForFieldName('name');
  const name = (target?.type === 'subscript' ? target.childForFieldName('name')?.text : target?.text) ?? '';
  if (CODE_VARIABLES.has(name) || PATH_VARIABLES.has(name) || name === 'BASH_CMDS') return `bash runs or loads what ${name} holds`;
  if (taint.integers.has(name)) return arithmetic(`${name} is an integer variable, so bash evaluates what is assigned to it as an arithmetic expression`);
  if (taint.namerefs.has(name)) return `${name} is a nameref (declare -n): what is assigned to it names a variable, evaluating an index in it`;
  const declaration = assignment.parent?.type === 'declaration_command' ? declarationFlags(assignment.parent) : '';
  if (/[aA]/.test(declaration) && assignment.childForFieldName('value')?.type !== 'array')
    return 'declare -a/-A reads it as a compound assignment, evaluating an index in it and running any $(…) there: assign the array with ( … )';
  return undefined;
}

/** An argument of a command: data, unless the command runs it (commands.ts) or it is unquoted. */
function argumentPlace(command: Node, argument: Node, quoted: boolean, kind: Kind, { reading, nodeOf }: Reading): string | undefined {
  const is = (word: ShellWord) => nodeOf.get(word)?.id === argument.id;
  const code = reading.code.find((use) => is(use.word));
  if (code) return `${code.runner} runs it as code: pass values as arguments or environment variables instead`;
  const path = reading.paths.find((use) => is(use.word));
  if (path) return `${path.runner} runs or loads the file it names: name the file literally`;
  if (reading.commandNames.some(is))
    return `${literalOf(command.childForFieldName('name') ?? command) ?? 'the command'} runs it as a command: name commands literally`;
  const name = reading.names.find((use) => is(use.word));
  if (name) return `${name.runner} reads it as a variable name, evaluating an index in it and running any $(…) there`;
  if (reading.arithmetic.some((use) => is(use.word))) return arithmetic();
  const literal = reading.literalOnly.find((use) => is(use.word));
  if (literal)
    return literal.runner === 'ssh'
      ? "ssh hands its words to a shell on the remote host: send values on standard input: printf '%s' \"$v\" | ssh host 'read -r v; …'"
      : `${literal.runner} expands or loads it`;
  if (!quoted && kind === 'outside') return unquoted(argument);
  return undefined;
}

/** Code read from the standard input while a value from outside flows there through a pipe. */
function commandProblems(command: Node, taint: Taint, { reading }: Reading, refuse: (node: Node, what: string, why: string) => void): void {
  const runner = reading.stdinCode[0]?.runner;
  if (runner === undefined || command.parent?.type !== 'pipeline' || command.parent.firstNamedChild?.id === command.id) return;
  const upstream = childrenOf(command.parent, true).filter((part) => part.endIndex <= command.startIndex);
  const tainted = upstream.flatMap((part) => [...nodesBelow(part)]).find((part) => VALUES.has(part.type) && !isTrusted(taint.kindOfWord(part)));
  if (tainted)
    refuse(
      command,
      `${runner} reads its program from a pipe that carries ${snippet(tainted.text)}`,
      'what a value from outside puts there runs as code; pass values as arguments instead',
    );
}

/** The command a redirection belongs to. */
function redirectedCommand(redirect: Node): Node | undefined {
  let at: Node | null = redirect;
  while (at && at.type !== 'command' && at.type !== 'redirected_statement') at = at.parent;
  if (at?.type === 'redirected_statement') {
    const body = at.childForFieldName('body');
    return body?.type === 'command' ? body : undefined;
  }
  return at ?? undefined;
}

const isOutputRedirect = (redirect: Node): boolean => redirect.type === 'file_redirect' && childrenOf(redirect).some((part) => /^(?:&?>|>)/.test(part.type));

/** A command the parser found, read by svc's reading of commands (commands.ts), each word mapped back to its node. */
function readCommandNode(command: Node, source: string): Reading {
  const nodeOf = new Map<ShellWord, Node>();
  const wordOf = (node: Node): ShellWord => {
    const word: ShellWord = { source, start: node.startIndex, end: node.endIndex, literal: literalOf(node), text: '', expansions: [], glob: false };
    nodeOf.set(word, node);
    return word;
  };
  const name = command.childForFieldName('name');
  const assignments = childrenOf(command, true)
    .filter((child) => child.type === 'variable_assignment')
    .map((assignment) => {
      const value = assignment.childForFieldName('value');
      const target = assignment.childForFieldName('name');
      return {
        ...wordOf(assignment),
        assignment: {
          name: (target?.type === 'subscript' ? target.childForFieldName('name')?.text : target?.text) ?? '',
          append: assignment.text.includes('+='),
          ...(value && value.type !== 'array' ? { value: wordOf(value) } : {}),
        },
      };
    });
  const words = [...(name?.firstNamedChild ? [wordOf(name.firstNamedChild)] : []), ...argumentsOf(command).map(wordOf)];
  const simple: SimpleCommand = {
    source,
    start: command.startIndex,
    end: command.endIndex,
    kind: 'simple',
    assignments,
    words,
    redirects: [],
    separator: '',
    piped: command.parent?.type === 'pipeline',
  };
  return { reading: readCommand(simple), nodeOf };
}
