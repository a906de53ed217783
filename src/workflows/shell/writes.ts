/**
 * What a bash script writes, read from bash's own parse: every variable it sets and how
 * (assignments, `declare`, `for`, arithmetic, `${v:=…}`, and what commands write — `read`,
 * `mapfile`, `printf -v` …, through wrappers like `command` and `builtin` — as svc's reading of
 * commands says, command-nodes.ts), the attributes it declares (`-A`, `-i`, `-n`), and whether it
 * may write variables where the parse cannot see (code this shell runs, a computed name). taint.ts
 * turns this into what each variable holds.
 */

import type { Node } from 'web-tree-sitter';
import type { NodeReading } from './command-nodes.js';
import type { Kind } from './kind.js';
import { argumentsOf, childrenOf, commandNameOf, declarationFlags, inArithmetic, literalOf } from './syntax.js';

export interface Write {
  readonly name: string;
  readonly at: Node;
  /** The words the value is made of, or the kind it has whatever they are. */
  readonly from: readonly Node[] | Kind;
  /** For messages: the text that writes it. */
  readonly how: string;
  /** The whole of a plain variable (not an element, not an array). */
  readonly scalar: boolean;
}

export interface ScriptFacts {
  /** Arrays surely associative, and from where: `declare -A m` on the script's top level, before every other mention of `m` that declares, unsets or writes it. */
  readonly associative: Map<string, number>;
  /** Names declared `-A` anywhere: their keys may be strings. */
  readonly everAssociative: Set<string>;
  /** Integer variables (`declare -i`, bash's own): what is assigned to them is arithmetic. */
  readonly integers: Set<string>;
  /** Namerefs and their targets (`declare -n`): what they name is a variable, and writes through them go unseen. */
  readonly namerefs: Set<string>;
  /** Names that are arrays somewhere: a declaration assigning one a string re-reads it as a compound assignment. */
  readonly arrays: Set<string>;
  /** Code this shell runs that is not read here (`eval`, `source`, a trap that assigns, a computed name): any variable may be written unseen. */
  hidden: boolean;
}

/** bash's own integer variables (measured with bash 5.2; names.ts says more). */
export const BASH_INTEGERS = ['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS', 'LINENO'];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ARITHMETIC_WRITE = /^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)/;
/** Code that may set a variable: an assignment, or a builtin that writes one. */
const MAY_WRITE =
  /(?:^|[\s;&|(`{])(?:[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=|(?:read|printf|mapfile|readarray|declare|typeset|local|export|readonly|getopts|let|wait|source|eval|builtin|command|exec|unset)\b|\.\s|\(\()/;

const nameOf = (value: Node | string | undefined): string | undefined => {
  const text = typeof value === 'string' ? value : value ? literalOf(value) : undefined;
  return text === undefined ? undefined : NAME.exec(text)?.[0];
};

/** The variable an assignment's target names: `v`, or `a` of `a[i]`. */
const targetName = (target: Node): string => (target.type === 'subscript' ? (target.childForFieldName('name')?.text ?? '') : target.text);

/** The variables a script writes, and how (every write, wherever it stands), with what it declares. */
export function findWrites(nodes: readonly Node[], script: string, readingOf: (command: Node) => NodeReading): { writes: Write[]; facts: ScriptFacts } {
  const facts: ScriptFacts = {
    associative: new Map(),
    everAssociative: new Set(),
    integers: new Set(BASH_INTEGERS),
    namerefs: new Set(),
    arrays: new Set(),
    hidden: false,
  };
  const writes: Write[] = [];
  // Messages quote the script as written (`$x.output`, where the parser read a variable).
  const add = (name: string | undefined, at: Node, from: readonly Node[] | Kind, scalar: boolean, how = script.slice(at.startIndex, at.endIndex)) => {
    if (name === undefined) return;
    writes.push({ name, at, from, scalar, how: how.length > 60 ? `${how.slice(0, 57)}…` : how });
    if (!scalar) facts.arrays.add(name);
  };
  const declared = new Map<string, Node[]>();
  for (const node of nodes) {
    switch (node.type) {
      case 'variable_assignment': {
        const target = node.childForFieldName('name');
        const name = target ? targetName(target) : undefined;
        const value = node.childForFieldName('value');
        const declaration = node.parent?.type === 'declaration_command' ? declarationFlags(node.parent) : '';
        const arithmetic = node.parent?.type === 'c_style_for_statement' || declaration.includes('i');
        const array = value?.type === 'array' || target?.type === 'subscript' || /[aA]/.test(declaration);
        add(name, node, arithmetic ? 'number' : !value ? 'clean' : value.type === 'array' ? childrenOf(value, true) : [value], !array);
        break;
      }
      case 'declaration_command':
        declaration(node, facts, declared);
        break;
      case 'unset_command':
        for (const child of childrenOf(node, true)) {
          const name = nameOf(child);
          if (name) declared.set(name, [...(declared.get(name) ?? []), node]);
          else facts.hidden = true;
        }
        break;
      case 'for_statement': {
        const variable = node.childForFieldName('variable')?.text;
        const values = node.childrenForFieldName('value').filter((value): value is Node => value !== null);
        const select = node.firstChild?.type === 'select';
        const listed = childrenOf(node).some((child) => child.type === 'in');
        // The loop's header writes the variable, before each pass through its body.
        const header = node.childForFieldName('variable') ?? node;
        add(variable, header, select ? 'outside' : listed ? values : 'unknown', true, `${node.firstChild?.text ?? 'for'} ${variable ?? ''} in …`);
        break;
      }
      case 'binary_expression':
      case 'postfix_expression':
      case 'unary_expression': {
        // Assignments inside arithmetic (`(( n = v + 1 ))`, `i++`) leave a number behind.
        const operator = node.childForFieldName('operator')?.text ?? '';
        if (!/^(?:[-+*/%&|^]|<<|>>)?=$|^(?:\+\+|--)$/.test(operator) || !inArithmetic(node)) break;
        const target = node.type === 'binary_expression' ? node.childForFieldName('left') : node.firstNamedChild;
        add(target ? nameOf(targetName(target)) : undefined, node, 'number', target?.type !== 'subscript');
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
            true,
          );
        break;
      }
      case 'command':
        commandWrites(node, readingOf(node), add, facts);
        break;
    }
  }
  settleAssociative(facts, declared, writes);
  return { writes, facts };
}

/** `declare`, `local`, `typeset`, `export`, `readonly`: the attributes they give, and a computed word (an option or a name svc cannot read). */
function declaration(node: Node, facts: ScriptFacts, declared: Map<string, Node[]>): void {
  const flags = declarationFlags(node);
  for (const child of childrenOf(node, true)) {
    const assigned = child.type === 'variable_assignment' ? child.childForFieldName('name') : undefined;
    const name = assigned ? targetName(assigned) : child.type === 'variable_name' ? child.text : undefined;
    if (name === undefined) {
      // `declare $f v`: the options or the name are computed.
      if (literalOf(child) === undefined) facts.hidden = true;
      continue;
    }
    declared.set(name, [...(declared.get(name) ?? []), node]);
    if (/[aA]/.test(flags)) facts.arrays.add(name);
    if (flags.includes('A')) facts.everAssociative.add(name);
    if (flags.includes('A') && node.parent?.type === 'program' && /^(?:declare|typeset)\b/.test(node.text)) facts.associative.set(name, node.endIndex);
    if (flags.includes('i')) facts.integers.add(name);
    if (flags.includes('n') && !node.text.startsWith('export')) {
      facts.namerefs.add(name);
      const target = nameOf(child.childForFieldName('value') ?? undefined);
      if (target) facts.namerefs.add(target);
    }
  }
}

/** An array is surely associative only when its one `declare -A` on the top level comes before every other declaration, `unset` and write of it. */
function settleAssociative(facts: ScriptFacts, declared: Map<string, Node[]>, writes: readonly Write[]): void {
  for (const [name, from] of facts.associative) {
    const others = (declared.get(name) ?? []).filter((node) => node.endIndex !== from);
    if (others.length > 0 || writes.some((write) => write.name === name && write.at.startIndex < from)) facts.associative.delete(name);
  }
}

/** What a command writes (svc's reading of it: through `command`, `builtin` …), and whether it may write unseen. */
function commandWrites(
  command: Node,
  { reading, nodeOf }: NodeReading,
  add: (name: string | undefined, at: Node, from: readonly Node[] | Kind, scalar: boolean) => void,
  facts: ScriptFacts,
): void {
  for (const write of reading.writes) {
    const values = write.values?.map((word) => nodeOf.get(word)).filter((node): node is Node => node !== undefined);
    // What a builtin reads (read, mapfile, getopts) comes from its input: from outside, for all svc knows.
    add(write.name, command, write.number ? 'number' : (values ?? 'outside'), write.scalar);
  }
  if (commandNameOf(command) === 'let')
    for (const word of reading.arithmetic) add(ARITHMETIC_WRITE.exec(word.word.literal ?? '')?.[1], command, 'number', true);
  for (const name of reading.integers) facts.integers.add(name);
  for (const name of reading.namerefs) facts.namerefs.add(name);
  // Code this shell runs may assign anything: unless it is text that visibly assigns nothing, or a
  // handler that runs only as the script ends (`trap '…' EXIT`), after every line that reads one.
  const atExit =
    commandNameOf(command) === 'trap' &&
    argumentsOf(command)
      .slice(1)
      .every((arg) => /^(?:EXIT|0)$/.test(literalOf(arg) ?? ''));
  for (const code of reading.code) {
    if (code.shell !== 'same' || atExit) continue;
    const text = code.text ?? code.word.literal;
    if (text === undefined || MAY_WRITE.test(text)) facts.hidden = true;
  }
  if (reading.paths.some((path) => path.runner === 'source' || path.runner === '.')) facts.hidden = true;
  if (reading.stdinCode.some((use) => use.shell === 'same')) facts.hidden = true;
  if (reading.names.some((use) => use.word.literal === undefined)) facts.hidden = true;
}
