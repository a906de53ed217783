/**
 * What each variable of a bash script can hold, read from bash's own parse (tree-sitter): the
 * first half of the positive policy (placement.ts is the second; docs/decisions.md, "A positive
 * policy"). A value is one of four kinds, from safest to least safe:
 *
 * - `number`: digits, whatever else the script was given (`$#`, `$(( … ))`, `${#v}`, a variable
 *   that passed a recognised number check);
 * - `clean`: text the script or svc chose (literal words, `$HOME`, `$(mktemp)`);
 * - `unknown`: neither chosen nor known to come from outside (a name the script never writes,
 *   the output of a program, `$1`);
 * - `outside`: a value from outside (`$<id>.output`, `$ARGUMENTS`, a webhook's payload) or made
 *   from one — taint follows assignments, `read`, `mapfile`, `printf -v`, `for` loops and
 *   command substitutions that read one.
 *
 * Flow-insensitive, and so on the safe side: a variable's kind joins what every write of it may
 * bring, wherever the write stands (a loop may run it again). One exception, the recognised
 * check on the script's top level, `[[ $v =~ ^[0-9]+$ ]] || exit 1`: after it `v` is a number,
 * when every write of `v` comes before it (and none in a function) and nothing can have redefined
 * `exit` (a function, an alias, `enable`).
 */

import type { Node } from 'web-tree-sitter';
import { RUN_VARIABLE_SOURCES } from '../run-variables.js';
import { PURE_PROGRAMS } from './names.js';
import { isTrusted, join, type Kind } from './kind.js';
import { commandReader, type NodeReading } from './command-nodes.js';
import { endingsRedefined, numberChecks } from './number-checks.js';
import { findWrites, type ScriptFacts, type Write } from './writes.js';
import { argumentsOf, childrenOf, commandNameOf, literalOf, nodesBelow, functionOf } from './syntax.js';

const NUMBER = /^[+-]?(?:[0-9]+|0[xX][0-9a-fA-F]+)$/;
/** A write that leaves a number whatever it reads: `(( v++ ))`, `v=$(( v + 1 ))`, `v=0`. */
const leavesNumber = (write: Write): boolean =>
  write.from === 'number' || (typeof write.from !== 'string' && write.from.every((node) => node.type === 'arithmetic_expansion' || node.type === 'number'));

/** What no code can assign: bash's specials and the script's name. */
const UNWRITABLE = new Set(['#', '?', '$', '!', '0', '-']);

/** Variables whose values are paths svc chose, to files that hold values from outside: reading those files reads such a value. */
const PATHS_TO_OUTSIDE = new Set(['ARTIFACTS_DIR', 'TRIGGER_PAYLOAD_FILE']);
/** What bash sets from input or from what a test matched. */
const SET_FROM_INPUT = new Set(['REPLY', 'MAPFILE', 'BASH_REMATCH', 'OPTARG', 'READLINE_LINE', 'COPROC']);
/** Numbers bash or svc keeps. */
const NUMBERS = new Set(['#', '?', '$', '!', 'BASHPID', 'PPID', 'UID', 'EUID', 'SECONDS', 'LINENO', 'RANDOM', 'SRANDOM', 'EPOCHSECONDS', 'SHLVL', 'SVC_PORT']);
/** What the machine or svc set before the script started, which no one outside chooses. */
const HOST = new Set([
  '0',
  '-',
  'HOME',
  'PATH',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'TERM',
  'HOSTNAME',
  'IFS',
  'BASH',
  'BASH_VERSION',
  'OSTYPE',
  'MACHTYPE',
  'HOSTTYPE',
  'CI',
  'EPOCHREALTIME',
]);

/** What a name holds before the script writes it. */
function initialKind(name: string): Kind {
  // svc's own variables for node outputs, named directly.
  if (name.startsWith('SVC_OUTPUT_')) return 'outside';
  const source = (RUN_VARIABLE_SOURCES as Record<string, string | undefined>)[name];
  if (PATHS_TO_OUTSIDE.has(name) || source === 'svc') return NUMBERS.has(name) ? 'number' : 'clean';
  if (source === 'outside' || SET_FROM_INPUT.has(name)) return 'outside';
  if (NUMBERS.has(name)) return 'number';
  return HOST.has(name) ? 'clean' : 'unknown';
}

/** Why a name of this initial kind is not trusted, for messages. */
function initialReason(name: string): string {
  if (initialKind(name) === 'outside') return SET_FROM_INPUT.has(name) ? 'bash sets it from input' : 'it holds a value from outside';
  if (/^[0-9@*]$/.test(name)) return 'it is an argument';
  return 'the script never sets it, so svc cannot know what it holds';
}

export interface Taint {
  /** What `name` holds where it is read (`at`: checks before it count). */
  kindOf(name: string, at: Node): Kind;
  /** What a word, or a part of one, holds. */
  kindOfWord(node: Node): Kind;
  /** Why `name` is not trusted, for messages. */
  why(name: string): string;
  /** What the word of the script spanning [start, end) holds, when the parser found a word there. */
  wordKind(start: number, end: number): Kind | undefined;
  /** Whether `name`, read at `offset` of the script, holds a number there. */
  numberAt(name: string, offset: number): boolean;
  /** Every node of the script's parse, in document order. */
  readonly nodes: readonly Node[];
  /** The offsets of the script's live `$<id>.output` references: each becomes a quoted expansion (references.ts). */
  readonly splices: ReadonlySet<number>;
  /** Whether `name` is an associative array where `at` reads it: its keys are strings there, not arithmetic. */
  isAssociative(name: string, at: Node | number): boolean;
  /** Whether a word names a file that holds values from outside: the run's artifacts, the payload (through any variable). */
  leadsOutside(node: Node): boolean;
  /** Whether the script changes directory into the run's artifacts: a relative path run after that may run one of their files. */
  readonly cdOutside: boolean;
  /** The literal words a command name holds, when it expands a variable the script set once, to literal text (`cmd=(git status); "${cmd[@]}"`). */
  literalWords(name: Node): string[] | undefined;
  /** Every write of the script, with what it brings. */
  readonly writes: readonly (Write & { readonly kind: Kind })[];
  /** What the script declares, and whether it may write unseen (writes.ts). */
  readonly facts: ScriptFacts;
  /** svc's reading of a command of the script (command-nodes.ts). */
  readonly readingOf: (command: Node) => NodeReading;
}

/** Reads the kinds of the variables of `script` (parsed as `root`); `splices` are the offsets of its live `$<id>.output` references. */
export function readTaint(root: Node, splices: ReadonlySet<number>, script: string): Taint {
  // Reading a node out of the parser costs: the tree is walked once, and its nodes kept.
  const nodes = [...nodesBelow(root)];
  const spliceOffsets = [...splices];
  const readingOf = commandReader(script);
  const { writes, facts } = findWrites(nodes, script, readingOf);
  const byName = new Map<string, Write[]>();
  for (const write of writes) byName.set(write.name, [...(byName.get(write.name) ?? []), write]);

  // A check clears a variable from the end of its statement, when every write of it comes before.
  // A check covers the statements after it in its sequence, when every write of the variable comes
  // before it, in the same function (or none), and leaves what it wrote to be checked: a write that
  // leaves a number (`(( v++ ))`) may come anywhere.
  // A check of an array's first element says nothing of the others; code run unseen may write anywhere.
  const checks =
    endingsRedefined(nodes) || facts.hidden
      ? []
      : numberChecks(nodes).filter(
          ({ name, statement }) =>
            !facts.namerefs.has(name) &&
            (byName.get(name) ?? []).every(
              (write) =>
                leavesNumber(write) || (write.scalar && write.at.endIndex <= statement.startIndex && functionOf(write.at)?.id === functionOf(statement)?.id),
            ),
        );

  const kinds = new Map<string, Kind>();
  const kindOf = (name: string, at: Node): Kind => {
    const covered = checks.some((check) => check.name === name && at.startIndex >= check.scope.start && at.endIndex <= check.scope.end);
    if (covered) return 'number';
    if (facts.namerefs.has(name)) return 'unknown';
    if (functionOf(at) && /^[0-9@*]$/.test(name)) return 'unknown';
    const kind = kinds.get(name) ?? initialKind(name);
    // Code run unseen may have set it to anything (bash's specials excepted).
    return facts.hidden && !UNWRITABLE.has(name) ? join(kind, 'unknown') : kind;
  };

  const kindOfWord = (node: Node): Kind => {
    switch (node.type) {
      case 'number':
        return 'number';
      case 'word':
        return NUMBER.test(node.text) ? 'number' : 'clean';
      case 'regex':
      case 'extglob_pattern':
      case 'ansi_c_string':
      case 'brace_expression':
      case 'string_content':
      case 'heredoc_content':
        return NUMBER.test(node.text) ? 'number' : 'clean';
      case 'raw_string':
        return spliceOffsets.some((offset) => offset > node.startIndex && offset < node.endIndex) ? 'outside' : 'clean';
      case 'arithmetic_expansion':
        return 'number';
      case 'simple_expansion': {
        if (splices.has(node.startIndex)) return 'outside';
        const name = node.text.slice(1);
        return kindOf(name, node);
      }
      case 'expansion':
        return expansionKind(node);
      case 'command_substitution':
      case 'process_substitution':
        return substitutionKind(node);
      default: {
        // string, concatenation, heredoc_body, array: what their parts hold.
        const literal = literalOf(node);
        if (literal !== undefined) return NUMBER.test(literal) ? 'number' : 'clean';
        let kind: Kind = 'number';
        for (const part of childrenOf(node, true)) kind = join(kind, kindOfWord(part));
        return kind;
      }
    }
  };

  /** `${…}`: the kind of the variable, joined with what its operator adds. */
  const expansionKind = (node: Node): Kind => {
    const parts = childrenOf(node);
    const first = parts[1];
    if (first?.type === '#') return 'number'; // ${#v}
    const subject = childrenOf(node, true)[0];
    if (first?.type === '!') {
      // ${!arr[@]}: an indexed array's keys are numbers; ${!v} reads another variable, named by a value.
      const index = subject?.type === 'subscript' ? subject.childForFieldName('index')?.text : undefined;
      const array = subject?.childForFieldName('name')?.text ?? '';
      return (index === '@' || index === '*') && !facts.everAssociative.has(array) ? 'number' : 'unknown';
    }
    if (!subject) return 'unknown';
    const name = subject.type === 'subscript' ? subject.childForFieldName('name')?.text : subject.text;
    let kind = name === undefined ? 'unknown' : kindOf(name, node);
    const operator = parts.find((part) => part.startIndex >= subject.endIndex && part.type !== '}');
    const after = childrenOf(node, true).filter((part) => part.startIndex >= subject.endIndex);
    switch (operator?.type) {
      case '//':
      case '/':
      case '/#':
      case '/%': {
        // The sanitiser `${v//[^0-9]/}` leaves digits only.
        const pattern = after[0]?.text ?? '';
        if (operator.type === '//' && /^\[[!^]0-9\]$/.test(pattern) && after.length <= 1) return 'number';
        for (const replacement of after.slice(1)) kind = join(kind, kindOfWord(replacement));
        return kind;
      }
      case ':-':
      case '-':
      case ':=':
      case '=':
      case ':+':
      case '+':
        for (const operand of after) kind = join(kind, kindOfWord(operand));
        return kind;
      case '@':
        return after[0]?.text === 'Q' ? kind : join(kind, 'unknown');
      default:
        return kind;
    }
  };

  /** A command substitution: a pure program's output (names.ts), a count (`… | wc -l`), else what it reads. */
  const substitutionKind = (node: Node): Kind => {
    const inner = childrenOf(node, true);
    const command = inner[0];
    const last =
      command?.type === 'pipeline' ? childrenOf(command, true).at(-1) : command?.type === 'redirected_statement' ? command.childForFieldName('body') : command;
    if (
      inner.length === 1 &&
      last?.type === 'command' &&
      commandNameOf(last) === 'wc' &&
      argumentsOf(last).every((arg) => /^-[lcwm]+$/.test(literalOf(arg) ?? ''))
    )
      return 'number';
    if (inner.length === 1 && command?.type === 'command' && !command.childForFieldName('redirect')) {
      const program = PURE_PROGRAMS.get(commandNameOf(command) ?? '');
      const args = argumentsOf(command);
      if (program && args.every((arg) => isTrusted(kindOfWord(arg)))) {
        return program === 'number' && args.every((arg) => kindOfWord(arg) === 'number') ? 'number' : 'clean';
      }
    }
    return readsOutside(node) ? 'outside' : 'unknown';
  };

  const readsOutside = (node: Node): boolean => {
    for (const part of nodesBelow(node)) {
      if (part.id === node.id) continue;
      if (part.type === 'simple_expansion' || part.type === 'raw_string' || part.type === 'expansion') {
        if (kindOfWord(part) === 'outside') return true;
        const name = part.type === 'expansion' ? childrenOf(part, true)[0]?.text : part.text.slice(1);
        if (name !== undefined && PATHS_TO_OUTSIDE.has(name)) return true;
      }
    }
    return false;
  };

  // Names that hold a path to a file of values from outside, and everything made from one.
  const pathsOutside = new Set(PATHS_TO_OUTSIDE);
  const namesIn = (node: Node): string[] =>
    [...nodesBelow(node)]
      .filter((part) => part.type === 'simple_expansion' || part.type === 'expansion')
      .map((part) => (part.type === 'expansion' ? (childrenOf(part, true)[0]?.text ?? '') : part.text.slice(1)).replace(/\[.*$/s, ''));
  const leadsOutside = (node: Node): boolean => namesIn(node).some((name) => pathsOutside.has(name));
  for (let changed = true; changed;) {
    changed = false;
    for (const write of writes) {
      if (pathsOutside.has(write.name) || typeof write.from === 'string') continue;
      if (write.from.some(leadsOutside)) {
        pathsOutside.add(write.name);
        changed = true;
      }
    }
  }

  const cdOutside = nodes.some(
    (node) => node.type === 'command' && ['cd', 'pushd'].includes(commandNameOf(node) ?? '') && argumentsOf(node).some((arg) => leadsOutside(arg)),
  );

  const literalWords = (word: Node): string[] | undefined => {
    const quoted = word.type === 'string' && word.namedChildCount === 1;
    const expansion = quoted ? word.firstNamedChild : word;
    if (!expansion || facts.hidden || (expansion.type !== 'simple_expansion' && expansion.type !== 'expansion')) return undefined;
    const subject = expansion.type === 'expansion' ? childrenOf(expansion, true) : [];
    if (subject.length > 1 || (expansion.type === 'expansion' && childrenOf(expansion).length !== 3)) return undefined; // an operator
    const whole = subject[0];
    const all = whole?.type === 'subscript' && ['@', '*'].includes(whole.childForFieldName('index')?.text ?? '');
    const name = whole?.type === 'subscript' ? whole.childForFieldName('name')?.text : (whole?.text ?? expansion.text.slice(1));
    const list = name === undefined ? undefined : byName.get(name);
    const only = list?.length === 1 ? list[0] : undefined;
    if (!only || typeof only.from === 'string' || facts.namerefs.has(name as string) || byName.has('IFS')) return undefined;
    const values = only.from.map(literalOf);
    if (values.some((value) => value === undefined)) return undefined;
    const words = values as string[];
    // An array's elements, whole; a quoted variable as one word; an unquoted one split at blanks.
    if (only.at.childForFieldName?.('value')?.type === 'array') return all && quoted ? words : undefined;
    if (whole?.type === 'subscript') return undefined;
    return quoted
      ? words
      : words
          .join(' ')
          .split(/[ \t\n]+/)
          .filter(Boolean);
  };

  const isAssociative = (name: string, at: Node | number): boolean => {
    const from = facts.associative.get(name);
    return from !== undefined && (typeof at === 'number' ? at : at.startIndex) >= from;
  };

  const kindOfWrite = (write: Write): Kind => {
    if (facts.integers.has(write.name) && write.at.type === 'variable_assignment') return 'number';
    if (typeof write.from === 'string') return write.from;
    let kind: Kind = 'number';
    for (const value of write.from) kind = join(kind, kindOfWord(value));
    return kind;
  };

  // The least fixed point: each name starts as a number and takes on what any write of it may bring.
  for (const [name] of byName) kinds.set(name, initialKind(name) === 'unknown' ? 'number' : initialKind(name));
  for (let changed = true, rounds = 0; changed && rounds < 4 * byName.size + 4; rounds++) {
    changed = false;
    for (const [name, list] of byName) {
      let kind = kinds.get(name) as Kind;
      for (const write of list) kind = join(kind, kindOfWrite(write));
      if (kind !== kinds.get(name)) {
        kinds.set(name, kind);
        changed = true;
      }
    }
  }

  const why = (name: string): string => {
    const list = byName.get(name);
    if (facts.namerefs.has(name)) return `${name} is a nameref or the target of one (declare -n), which the script can set unseen`;
    if (!list) return `${name}: ${initialReason(name)}`;
    const culprit = list.find((write) => !isTrusted(kindOfWrite(write)));
    const checked = checks.some((check) => check.name === name) ? '' : `; check it first: [[ $${name} =~ ^[0-9]+$ ]] || exit 1`;
    return culprit ? `${name} is set by ${culprit.how}${checked}` : `${name}: ${initialReason(name)}`;
  };

  const wordKind = (start: number, end: number): Kind | undefined => {
    for (let node: Node | null = root.descendantForIndex(start, Math.max(start, end - 1)); node; node = node.parent) {
      if (node.startIndex === start && node.endIndex === end) return kindOfWord(node);
      if (node.startIndex < start || node.endIndex > end) return undefined;
    }
    return undefined;
  };
  const numberAt = (name: string, offset: number): boolean => {
    const at = root.descendantForIndex(offset);
    return at !== null && kindOf(name, at) === 'number';
  };

  return {
    nodes,
    kindOf,
    kindOfWord,
    why,
    wordKind,
    numberAt,
    splices,
    isAssociative,
    leadsOutside,
    cdOutside,
    literalWords,
    writes: writes.map((write) => ({ ...write, kind: kindOfWrite(write) })),
    facts,
    readingOf,
  };
}
