/**
 * What a bash script writes, read from bash's own parse: every variable it sets and how
 * (assignments, `read`, `mapfile`, `printf -v`, `for`, arithmetic), the attributes it declares
 * (`-A`, `-i`, `-n`), and the recognised number checks on its top level. taint.ts turns this into
 * what each variable holds.
 */

import type { Node } from 'web-tree-sitter';
import { isNumberPattern } from './names.js';
import { argumentsOf, childrenOf, commandNameOf, declarationFlags, inArithmetic, inFunction, literalOf } from './syntax.js';
import type { Kind } from './kind.js';

export interface Write {
  readonly name: string;
  readonly at: Node;
  /** The words the value is made of, or the kind it has whatever they are. */
  readonly from: readonly Node[] | Kind;
  /** For messages: the text that writes it. */
  readonly how: string;
}

/** bash's own integer variables (measured with bash 5.2; names.ts says more). */
export const BASH_INTEGERS = ['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS', 'LINENO'];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ARITHMETIC_WRITE = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)/;

/** Options of a builtin (`read -ra x`): which letters take a value; the words after them are operands. */
function operands(args: readonly Node[], takesValue: string): { options: Map<string, Node | string>; operands: Node[] } {
  const options = new Map<string, Node | string>();
  let k = 0;
  for (; k < args.length; k++) {
    const text = literalOf(args[k] as Node);
    if (text === '--') {
      k++;
      break;
    }
    if (text === undefined || !/^-[A-Za-z]/.test(text)) break;
    for (let l = 1; l < text.length; l++) {
      const letter = text[l] as string;
      if (!takesValue.includes(letter)) {
        options.set(letter, '');
        continue;
      }
      const attached = text.slice(l + 1);
      options.set(letter, attached !== '' ? attached : (args[++k] ?? ''));
      break;
    }
  }
  return { options, operands: args.slice(k) };
}

const nameOf = (value: Node | string | undefined): string | undefined => {
  const text = typeof value === 'string' ? value : value ? literalOf(value) : undefined;
  return text === undefined ? undefined : NAME.exec(text)?.[0];
};

/** The variable an assignment's target names: `v`, or `a` of `a[i]`. */
const targetName = (target: Node): string => (target.type === 'subscript' ? (target.childForFieldName('name')?.text ?? '') : target.text);

/** The variables a script writes, and how (every write, wherever it stands). */
export function findWrites(nodes: readonly Node[], facts: { associative: Set<string>; integers: Set<string>; namerefs: Set<string> }, script: string): Write[] {
  const writes: Write[] = [];
  // Messages quote the script as written (`$x.output`, where the parser read a variable).
  const add = (name: string | undefined, at: Node, from: readonly Node[] | Kind, how = script.slice(at.startIndex, at.endIndex)) => {
    if (name !== undefined) writes.push({ name, at, from, how: how.length > 60 ? `${how.slice(0, 57)}…` : how });
  };
  for (const node of nodes) {
    switch (node.type) {
      case 'variable_assignment': {
        const target = node.childForFieldName('name');
        const name = target ? targetName(target) : undefined;
        const value = node.childForFieldName('value');
        const declaration = node.parent?.type === 'declaration_command' ? declarationFlags(node.parent) : '';
        const arithmetic = node.parent?.type === 'c_style_for_statement' || declaration.includes('i');
        add(name, node, arithmetic ? 'number' : !value ? 'clean' : value.type === 'array' ? childrenOf(value, true) : [value]);
        break;
      }
      case 'declaration_command': {
        const flags = declarationFlags(node);
        for (const child of childrenOf(node, true)) {
          const assigned = child.type === 'variable_assignment' ? child.childForFieldName('name') : undefined;
          const name = assigned ? targetName(assigned) : child.type === 'variable_name' ? child.text : undefined;
          if (name === undefined) continue;
          if (flags.includes('A')) facts.associative.add(name);
          if (flags.includes('i')) facts.integers.add(name);
          if (flags.includes('n') && !node.text.startsWith('export')) {
            facts.namerefs.add(name);
            const target = nameOf(child.childForFieldName('value') ?? undefined);
            if (target) facts.namerefs.add(target);
          }
        }
        break;
      }
      case 'for_statement': {
        const variable = node.childForFieldName('variable')?.text;
        const values = node.childrenForFieldName('value').filter((value): value is Node => value !== null);
        const select = node.firstChild?.type === 'select';
        const listed = childrenOf(node).some((child) => child.type === 'in');
        // The loop's header writes the variable, before each pass through its body.
        const header = node.childForFieldName('variable') ?? node;
        add(variable, header, select ? 'outside' : listed ? values : 'unknown', `${node.firstChild?.text ?? 'for'} ${variable ?? ''} in …`);
        break;
      }
      case 'binary_expression':
      case 'postfix_expression':
      case 'unary_expression': {
        // Assignments inside arithmetic (`(( n = v + 1 ))`, `i++`) leave a number behind.
        const operator = node.childForFieldName('operator')?.text ?? '';
        if (!/^(?:[-+*/%&|^]|<<|>>)?=$|^(?:\+\+|--)$/.test(operator) || !inArithmetic(node)) break;
        const target = node.type === 'binary_expression' ? node.childForFieldName('left') : node.firstNamedChild;
        add(target ? nameOf(targetName(target)) : undefined, node, 'number');
        break;
      }
      case 'expansion': {
        // `${v:=default}` writes v.
        const operator = childrenOf(node).find((child) => child.type === ':=' || child.type === '=');
        const name = childrenOf(node, true).find((child) => child.type === 'variable_name')?.text;
        if (operator && name)
          add(
            name,
            node,
            childrenOf(node, true).filter((child) => child.startIndex > operator.startIndex),
          );
        break;
      }
      case 'command':
        commandWrites(node, add);
        break;
    }
  }
  return writes;
}

/** What builtins write: `read`, `mapfile`, `printf -v`, `getopts`, `wait -p`, `let`. */
function commandWrites(command: Node, add: (name: string | undefined, at: Node, from: readonly Node[] | Kind) => void): void {
  const args = argumentsOf(command);
  switch (commandNameOf(command)) {
    case 'read': {
      const read = operands(args, 'adinNptu');
      add(nameOf(read.options.get('a')), command, 'outside');
      for (const operand of read.operands) add(nameOf(operand), command, 'outside');
      if (read.operands.length === 0 && !read.options.has('a')) add('REPLY', command, 'outside');
      break;
    }
    case 'mapfile':
    case 'readarray': {
      const read = operands(args, 'dnOsucC');
      add(nameOf(read.operands.at(-1)) ?? 'MAPFILE', command, 'outside');
      break;
    }
    case 'printf': {
      const printed = operands(args, 'v');
      const target = printed.options.get('v');
      if (target === undefined) break;
      // One %d, %i or %u and one argument: bash converts with strtoimax, never arithmetic (names.ts).
      const number = printed.operands.length === 2 && ['%d', '%i', '%u'].includes(literalOf(printed.operands[0] as Node) ?? '');
      add(nameOf(target), command, number ? 'number' : printed.operands);
      break;
    }
    case 'getopts':
      add(nameOf(args[1]), command, 'unknown');
      break;
    case 'wait':
      add(nameOf(operands(args, 'p').options.get('p')), command, 'number');
      break;
    case 'let':
      for (const arg of args) add(ARITHMETIC_WRITE.exec(literalOf(arg) ?? '')?.[1], command, 'number');
      break;
  }
}

/** Whether a script can have redefined what ends it: a function named `exit` or `return`, an alias, `enable`. */
export function endingsRedefined(nodes: readonly Node[]): boolean {
  for (const node of nodes) {
    if (node.type === 'function_definition' && ['exit', 'return'].includes(node.childForFieldName('name')?.text ?? '')) return true;
    if (node.type === 'command' && ['alias', 'enable', 'shopt'].includes(commandNameOf(node) ?? '')) return true;
    if (node.type === 'variable_assignment' && node.text.startsWith('BASH_ALIASES')) return true;
  }
  return false;
}

/** `exit` — or `return`, in a function — alone or last in `{ …; exit N; }`. */
function ends(node: Node | null, inFunctionBody: boolean): boolean {
  if (!node) return false;
  if (node.type === 'command') return commandNameOf(node) === 'exit' || (inFunctionBody && commandNameOf(node) === 'return');
  if (node.type === 'compound_statement' && node.firstChild?.type === '{') return ends(childrenOf(node, true).at(-1) ?? null, inFunctionBody);
  return false;
}

/** Statements bash runs one after another: what follows a check in one of these runs only when the check passed. */
const SEQUENCES = new Set(['program', 'do_group', 'compound_statement', 'subshell', 'if_statement', 'elif_clause', 'else_clause', 'case_item']);

/** A recognised number check: the variable it covers, and the statements it covers (those after it in its sequence). */
export interface Check {
  readonly name: string;
  readonly statement: Node;
  readonly scope: Node;
}

/**
 * The recognised number checks of a script: `[[ $v =~ ^[0-9]+$ ]] || exit 1` (or `|| { …; exit 1; }`,
 * or `return` in a function), the pattern unquoted and anchored (names.ts, isNumberPattern), as a
 * statement of its own.
 */
export function numberChecks(nodes: readonly Node[]): Check[] {
  const checks: Check[] = [];
  for (const statement of nodes) {
    if (statement.type !== 'list' || !statement.parent || !SEQUENCES.has(statement.parent.type)) continue;
    const [test, operator, ending] = childrenOf(statement);
    if (test?.type !== 'test_command' || test.firstChild?.type !== '[[' || operator?.type !== '||' || !ends(ending ?? null, inFunction(statement))) continue;
    const match = test.firstNamedChild;
    if (match?.type !== 'binary_expression' || match.childForFieldName('operator')?.text !== '=~') continue;
    // A quoted pattern matches as a string, anywhere in the value: only a bare regex anchors.
    const pattern = match.childForFieldName('right');
    if (pattern?.type !== 'regex' || !isNumberPattern(pattern.text)) continue;
    let subject = match.childForFieldName('left');
    if (subject?.type === 'string' && subject.namedChildCount === 1) subject = subject.firstNamedChild;
    const name = subject?.type === 'simple_expansion' || (subject?.type === 'expansion' && subject.namedChildCount === 1) ? subject.firstNamedChild : null;
    if (name?.type === 'variable_name') checks.push({ name: name.text, statement, scope: statement.parent });
  }
  return checks;
}
