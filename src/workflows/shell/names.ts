/**
 * What the variables of a script can hold, as far as its text says. A name used in arithmetic must
 * hold a number, and a name used where a file is run must hold text the script or svc's
 * environment chose — not a value from outside. Tracking how a value flows through a script is
 * not reliable, so this is flow-insensitive and errs on the safe side: a variable is clean only
 * when *every* place that sets it sets something clean, wherever it is in the script. The one
 * exception is the check the docs recommend, right after the value is set:
 *
 *     n=$x.output
 *     [[ $n =~ ^[0-9]+$ ]] || exit 1
 *
 * After that line `n` holds digits or the script has ended, so that write counts as a number.
 */

import { OUTSIDE_VARIABLES } from '../run-variables.js';
import type { Write } from './reading.js';
import type { ShellWord, SimpleCommand } from './outline.js';

const OUTSIDE: ReadonlySet<string> = new Set(OUTSIDE_VARIABLES);

/** Variables bash sets by itself from input, arguments or the script's own text: no line of the script says what they hold. */
const SET_BY_BASH = new Set([
  '_',
  'REPLY',
  'OPTARG',
  'BASH_REMATCH',
  'MAPFILE',
  'BASH_COMMAND',
  'BASH_EXECUTION_STRING',
  'BASH_ARGV',
  'BASH_ARGV0',
  'BASH_ARGC',
  'BASH_SOURCE',
  'FUNCNAME',
  'COPROC',
  'READLINE_LINE',
  'COMP_LINE',
  'COMP_WORDS',
  'COMPREPLY',
  'PWD',
  'OLDPWD',
  'DIRSTACK',
  'BASH_ALIASES',
  'BASH_CMDS',
]);

type ValueKind = 'number' | 'clean' | 'unknown';

/**
 * Programs whose output depends only on their arguments — given plain words they read no file and
 * no standard input — and what they print: a command substitution of them, with clean arguments
 * and no input redirected, brings in nothing from outside (`tmp=$(mktemp)`, `for i in $(seq 1 3)`,
 * `"$(dirname "$0")"`). `seq` prints numbers only without options (`-f`, `-s` print text).
 */
export const PURE_PROGRAMS = new Map<string, ValueKind>([
  ['seq', 'number'],
  ['nproc', 'number'],
  ['mktemp', 'clean'],
  ['dirname', 'clean'],
  ['basename', 'clean'],
  ['pwd', 'clean'],
  ['uname', 'clean'],
  ['whoami', 'clean'],
  ['hostname', 'clean'],
]);

export interface NameFacts {
  /** Why `name` may hold something other than a number, or undefined when it holds only numbers. */
  notNumeric(name: string): string | undefined;
  /** Why `name` may hold a value from outside, or undefined when it holds only what the script or the environment chose. */
  notClean(name: string): string | undefined;
  /** Whether `word` is made only of what the script or the environment chose (literal text, clean variables, pure command substitutions). */
  cleanWord(word: ShellWord): boolean;
}

const NUMBER = /^[+-]?(?:[0-9]+|0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+)$/;
const BRACE_RANGE = /^\{-?[0-9]+\.\.-?[0-9]+(?:\.\.-?[0-9]+)?\}$/;

export function nameFacts(
  writes: readonly Write[],
  options: {
    integers: ReadonlySet<string>;
    namerefs: ReadonlySet<string>;
    checksEndTheScript: boolean;
    /** For code another shell runs: what the script that starts it knows of the variables it passes on. */
    inherited?: NameFacts;
    /** The commands inside a word's command substitutions (from the scanner's outline). */
    commandsIn?: (word: ShellWord) => readonly SimpleCommand[];
  },
): NameFacts {
  const byName = new Map<string, Write[]>();
  for (const write of writes) {
    const list = byName.get(write.name);
    if (list) list.push(write);
    else byName.set(write.name, [write]);
  }
  const checked = new Set(options.checksEndTheScript ? writes.filter(isCheckedOnNextLine) : []);
  const numeric = new Set(byName.keys());
  const clean = new Set(byName.keys());

  const fixedReason = (name: string): string | undefined => {
    if (OUTSIDE.has(name)) return 'it holds a value from outside';
    if (SET_BY_BASH.has(name)) return 'bash sets it from input, arguments or the script text';
    if (/^[0-9]+$/.test(name) || '@*'.includes(name)) return 'it is an argument';
    if (name === '-') return 'it holds the shell options';
    if (options.namerefs.has(name)) return 'it is a nameref or the target of one (declare -n), which the script can set unseen';
    return undefined;
  };
  // A name the script never sets holds what its environment gave it: the server's, or the starting script's.
  const { inherited } = options;
  const isNumeric = (name: string) =>
    '#?$!'.includes(name) || (fixedReason(name) === undefined && (byName.has(name) ? numeric.has(name) : inherited?.notNumeric(name) === undefined));
  const isClean = (name: string) =>
    name === '0' || isNumeric(name) || (fixedReason(name) === undefined && (byName.has(name) ? clean.has(name) : inherited?.notClean(name) === undefined));

  /** What the command substitutions of `word` print: only pure programs with clean arguments, or `unknown`. */
  const substitutionKind = (word: ShellWord, depth: number): ValueKind => {
    const commands = options.commandsIn?.(word) ?? [];
    if (commands.length === 0 || depth > 4) return 'unknown';
    let kind: ValueKind = 'number';
    for (const command of commands) {
      const program = command.kind === 'simple' ? PURE_PROGRAMS.get(command.words[0]?.literal ?? '') : undefined;
      if (!program || command.assignments.length > 0 || command.redirects.some((redirect) => redirect.op.includes('<'))) return 'unknown';
      const args = command.words.slice(1);
      const argKinds = args.map((arg) => kindOf(arg, depth + 1));
      if (argKinds.includes('unknown')) return 'unknown';
      const prints = program === 'number' && args.every((arg) => arg.literal !== undefined && NUMBER.test(arg.literal)) ? 'number' : 'clean';
      if (prints === 'clean') kind = 'clean';
    }
    return kind;
  };

  const kindOf = (word: ShellWord, depth = 0): ValueKind => {
    if (word.literal !== undefined) return NUMBER.test(word.literal) || BRACE_RANGE.test(word.literal) ? 'number' : 'clean';
    let kind: ValueKind = /^[+-]?[0-9]*$/.test(word.text) ? 'number' : 'clean';
    for (const expansion of word.expansions) {
      const name = expansion.name ?? '';
      if (expansion.kind === 'arithmetic' || (expansion.kind === 'parameter' && expansion.form === 'length')) continue;
      if (expansion.kind === 'command') {
        const printed = substitutionKind(word, depth);
        if (printed === 'unknown') return 'unknown';
        if (printed === 'clean') kind = 'clean';
        continue;
      }
      if (expansion.kind === 'parameter' && expansion.form === 'plain' && isNumeric(name)) continue;
      if (expansion.kind === 'parameter' && (expansion.form === 'plain' || expansion.form === 'keys') && isClean(name)) kind = 'clean';
      else return 'unknown';
    }
    return kind;
  };

  const kindOfWrite = (write: Write): ValueKind => {
    // A value assigned to an integer variable is evaluated as arithmetic, which check.ts holds to numbers.
    if (write.assignment && options.integers.has(write.name)) return 'number';
    if (checked.has(write) || write.number) return 'number';
    if (write.values === undefined) return 'unknown';
    let kind: ValueKind = 'number';
    for (const value of write.values) {
      const valueKind = kindOf(value);
      if (valueKind === 'unknown') return 'unknown';
      if (valueKind === 'clean') kind = 'clean';
    }
    return kind;
  };

  // The greatest fixed point: a name loses its standing when a write of it may bring in something
  // less clean; the names whose writes read it are then looked at again.
  const readers = new Map<string, Set<string>>();
  for (const write of writes) {
    for (const value of write.values ?? []) {
      for (const expansion of value.expansions) {
        if (expansion.kind !== 'parameter' || expansion.name === undefined) continue;
        const set = readers.get(expansion.name) ?? new Set<string>();
        set.add(write.name);
        readers.set(expansion.name, set);
      }
    }
  }
  const pending = [...byName.keys()];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    let changed = false;
    for (const write of byName.get(name) ?? []) {
      const kind = kindOfWrite(write);
      if (kind !== 'number' && numeric.delete(name)) changed = true;
      if (kind === 'unknown' && clean.delete(name)) changed = true;
    }
    if (changed) pending.push(...(readers.get(name) ?? []));
  }

  const describe = (name: string, wanted: ValueKind): string => {
    const culprit = byName.get(name)?.find((write) => (wanted === 'number' ? kindOfWrite(write) !== 'number' : kindOfWrite(write) === 'unknown'));
    return culprit ? `it is set by ${culprit.how}` : 'it is set from a value svc cannot check';
  };
  const inheritedReason = (name: string, reason: string | undefined) =>
    reason === undefined ? undefined : `it is passed on by the script that starts this one, where ${reason}`;
  return {
    notNumeric: (name) =>
      isNumeric(name) ? undefined : (fixedReason(name) ?? (byName.has(name) ? describe(name, 'number') : inheritedReason(name, inherited?.notNumeric(name)))),
    notClean: (name) =>
      isClean(name) ? undefined : (fixedReason(name) ?? (byName.has(name) ? describe(name, 'clean') : inheritedReason(name, inherited?.notClean(name)))),
    cleanWord: (word) => kindOf(word) !== 'unknown',
  };
}

/**
 * Whether the line after `write` checks that the variable holds a number and ends the script
 * (`exit`; `return` when the variable is `local`) when it does not:
 * `[[ $n =~ ^[0-9]+$ ]] || exit 1`, or `|| { echo …; exit 1; }`.
 */
export function isCheckedOnNextLine(write: Write): boolean {
  const { command } = write;
  if (!command || !write.scalar || command.piped || (command.separator !== ';' && command.separator !== '\n')) return false;
  const { source } = command;
  const at = (pattern: RegExp, offset: number): number => {
    pattern.lastIndex = offset;
    return pattern.exec(source) ? pattern.lastIndex : -1;
  };
  let next = at(/[ \t]*(?:#[^\n]*)?[;\n](?:[\s;]|#[^\n]*)*/y, command.end);
  if (next !== -1 && command.kind === 'for') next = at(/do\b(?:[\s;]|#[^\n]*)*/y, next);
  if (next === -1 || !source.startsWith('[[', next)) return false;
  const name = write.name;
  const ends = write.local ? '(?:exit|return)' : 'exit';
  const guard = new RegExp(
    String.raw`\[\[[ \t]+("?)\$(?:${name}|\{${name}\})\1[ \t]+=~[ \t]+(\S+)[ \t]+\]\][ \t]*\|\|[ \t]*` +
      String.raw`(?:${ends}(?:[ \t]+[0-9]+)?|\{[^{}]{0,2000}[;\n][ \t]*${ends}(?:[ \t]+[0-9]+)?[ \t]*;?[ \t]*\})[ \t]*(?:[;\n)}]|$)`,
    'y',
  );
  guard.lastIndex = next;
  const match = guard.exec(source);
  return match !== null && isNumberPattern(match[2] as string);
}

/** An extended regular expression, anchored at both ends, that matches only digits and signs. */
export function isNumberPattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$') || pattern.endsWith('\\$') || pattern.length < 2) return false;
  const body = pattern.slice(1, -1);
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const rest = body.slice(i);
    const bracket = /^\[(?:[0-9+-]|\[:digit:\])+\]/.exec(rest)?.[0] ?? /^\{[0-9]+(?:,[0-9]*)?\}/.exec(rest)?.[0];
    if (bracket) i += bracket.length - 1;
    else if (/^\\[+-]/.test(rest)) i++;
    else if (body[i] === '(') depth++;
    else if (body[i] === ')') {
      if (--depth < 0) return false;
    } else if (body[i] === '|') {
      // Outside a group, `^a|b$` anchors only one side of each alternative.
      if (depth === 0) return false;
    } else if (!/[0-9+*?-]/.test(body[i] as string)) return false;
  }
  return depth === 0;
}
