/**
 * What a simple command does with its words (commands.ts reads it): the shape of that reading,
 * and the variables a command sets.
 */

import { snippet, textOf, type ArithmeticKind, type ShellWord, type SimpleCommand } from './outline.js';

export interface CodeUse {
  readonly word: ShellWord;
  /** The program that runs it, for messages (`eval`, `bash -c`, `python3 -c`, `awk`). */
  readonly runner: string;
  /** `same`: this shell runs it (`eval`, `trap`); `new`: another shell (`bash -c`); `other`: another language. */
  readonly shell: 'same' | 'new' | 'other';
  /** The code, when it is only part of the word (`alias name=code`). */
  readonly text?: string;
}

export interface Write {
  readonly name: string;
  /** How the command sets it, for messages: `read n`, `for n in …`, `n=…`. */
  readonly how: string;
  /** The words the value is made of (an assignment, a `for` list); undefined when it comes from input. */
  readonly values?: readonly ShellWord[];
  /** One word of value (not an array or an element of one): what a check on the next line covers. */
  readonly scalar: boolean;
  readonly assignment: boolean;
  /** Declared `local`: `return` ends it, so a check may `return` instead of `exit`. */
  readonly local: boolean;
  /** The command that sets it; none for `${v:=…}`. */
  readonly command?: SimpleCommand;
  /** Whatever its input, what it sets is a number (`printf -v n %d …`). */
  readonly number?: boolean;
}

export interface CommandReading {
  readonly commandNames: ShellWord[];
  readonly code: CodeUse[];
  readonly paths: { word: ShellWord; runner: string }[];
  readonly names: { word: ShellWord; runner: string }[];
  readonly arithmetic: { word: ShellWord; kind: ArithmeticKind }[];
  /** Words that must be literal whatever they hold (ssh's remote command, compgen's word list). */
  readonly literalOnly: { word: ShellWord; runner: string }[];
  /** A program that reads its code from standard input. */
  readonly stdinCode: { runner: string; shell: CodeUse['shell'] }[];
  readonly writes: Write[];
  /** Names given the integer attribute (`declare -i`): every value assigned to them is arithmetic. */
  readonly integers: string[];
  /** Names of namerefs and their targets (`declare -n r=v`): writes through them are not visible. */
  readonly namerefs: string[];
  /** Strings that xargs -I or find -exec replace by a value in later words (`{}`). */
  readonly replacements: string[];
}

/** Variables whose value bash runs as code (prompts are expanded, with `$(…)`, under `set -x` and in interactive shells). */
export const CODE_VARIABLES = new Set(['PS0', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND', 'BASH_ALIASES']);
/** Variables naming what runs or loads: bash sources BASH_ENV, the dynamic linker loads LD_PRELOAD. */
export const PATH_VARIABLES = new Set(['BASH_ENV', 'ENV', 'PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'BASH_CMDS']);
export function emptyReading(): CommandReading {
  return {
    commandNames: [],
    code: [],
    paths: [],
    names: [],
    arithmetic: [],
    literalOnly: [],
    stdinCode: [],
    writes: [],
    integers: [],
    namerefs: [],
    replacements: [],
  };
}

export function mergeReading(into: CommandReading, from: CommandReading): void {
  for (const key of Object.keys(from) as (keyof CommandReading)[]) (into[key] as unknown[]).push(...(from[key] as unknown[]));
}

export function addWrite(
  reading: CommandReading,
  command: SimpleCommand,
  name: string,
  how: string,
  values: readonly ShellWord[] | undefined,
  options: { scalar: boolean; assignment?: boolean; local?: boolean; number?: boolean },
): void {
  // `read a[1]` sets an element of `a`: a write of `a`, not of one word.
  const base = /^[A-Za-z_][A-Za-z0-9_]*/.exec(name)?.[0];
  if (base === undefined) return;
  const scalar = options.scalar && base === name;
  reading.writes.push({
    name: base,
    how,
    values,
    scalar,
    assignment: options.assignment ?? false,
    local: options.local ?? false,
    command,
    ...(options.number ? { number: true } : {}),
  });
}

/**
 * Words a program joins with spaces and runs as one piece of code (`eval a b`, `sudo -s a b`): one
 * use with the joined text when all are literal (split, `((` and `))` would read apart), else each
 * word that is not.
 */
export function addJoinedCode(reading: CommandReading, words: readonly ShellWord[], runner: string, shell: CodeUse['shell']): void {
  const first = words[0];
  if (!first) return;
  if (words.every((word) => word.literal !== undefined)) reading.code.push({ word: first, runner, shell, text: words.map((word) => word.literal).join(' ') });
  else for (const word of words) if (word.literal === undefined) reading.code.push({ word, runner, shell });
}

/** Paths that name the standard input: a program given one reads its code from there. */
export const STANDARD_INPUT = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/(?:self|[0-9]+)\/fd\/[0-9]+)$/;

/** A program run from `word`: a file, or the standard input when the word names it. */
export function addProgramPath(reading: CommandReading, word: ShellWord, runner: string, shell: CodeUse['shell']): void {
  if (word.literal !== undefined && STANDARD_INPUT.test(word.literal)) reading.stdinCode.push({ runner, shell });
  else reading.paths.push({ word, runner });
}

export function readAssignment(reading: CommandReading, command: SimpleCommand, word: ShellWord, runner: string): void {
  const assignment = word.assignment;
  if (!assignment) return;
  const { name, value, elements } = assignment;
  if (CODE_VARIABLES.has(name)) reading.code.push({ word: value ?? word, runner: name, shell: 'same' });
  // BASH_ENV and ENV name a file bash runs first: /dev/stdin there is code read from the standard input.
  if (PATH_VARIABLES.has(name) && value) {
    if (name === 'BASH_ENV' || name === 'ENV') addProgramPath(reading, value, name, 'new');
    else reading.paths.push({ word: value, runner: name });
  }
  const scalar = value !== undefined && assignment.subscript === undefined && !assignment.append;
  addWrite(reading, command, name, snippet(textOf(word)), value ? [value] : elements, { scalar, assignment: true, local: runner === 'local' });
}
