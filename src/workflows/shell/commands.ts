/**
 * What a simple command does with its words, beyond passing them to a program as data: which
 * words name the program, which are run as code (`eval`, `bash -c`, `python -c`, awk and sed
 * programs, `trap`), which name a file that is run (`source`), which name a variable (`read`,
 * `unset`, `printf -v`), which are arithmetic (`let`, `[[ a -eq b ]]`), and which variables it
 * sets. Wrappers that run the rest of their words as a command (`sudo`, `timeout`, `xargs`,
 * `find -exec`, …) are followed. check.ts decides what may stand in each place.
 */

import { readBuiltin } from './builtins.js';
import type { ShellWord, SimpleCommand } from './outline.js';
import {
  addJoinedCode,
  addProgramPath,
  addWrite,
  CODE_VARIABLES,
  emptyReading,
  mergeReading,
  PATH_VARIABLES,
  readAssignment,
  type CommandReading,
} from './reading.js';

const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'fish']);
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Commands that run the rest of their words as a command: options taking a value, then positional words before the command. */
interface Wrapper {
  readonly values: string;
  readonly positionals?: number;
}
const WRAPPERS: Record<string, Wrapper> = {
  exec: { values: 'a' },
  command: { values: '' },
  builtin: { values: '' },
  nohup: { values: '' },
  setsid: { values: '' },
  unbuffer: { values: '' },
  caffeinate: { values: 'tw' },
  nice: { values: 'n' },
  ionice: { values: 'cnp' },
  timeout: { values: 'sk', positionals: 1 },
  stdbuf: { values: 'ioe' },
  env: { values: 'uCS' },
  sudo: { values: 'ugCDhpTUr' },
  doas: { values: 'uC' },
  chrt: { values: '', positionals: 1 },
  taskset: { values: '', positionals: 1 },
  flock: { values: 'wEc', positionals: 1 },
  time: { values: 'of' },
  xargs: { values: 'adEILlnPsi' },
  chroot: { values: '', positionals: 1 },
  strace: { values: 'oepsSEPuI' },
};

/** Interpreters of other languages: the option whose value is code, options taking another value, the option naming a module. */
const INTERPRETERS: readonly [RegExp, { code: string; values: string; module?: string }][] = [
  [/^python[0-9.]*$/, { code: 'c', values: 'WXQ', module: 'm' }],
  [/^(?:node|nodejs|bun)$/, { code: 'ep', values: 'r' }],
  [/^perl[0-9.]*$/, { code: 'eE', values: 'IM' }],
  [/^ruby[0-9.]*$/, { code: 'e', values: 'rIC' }],
  [/^php[0-9.]*$/, { code: 'r', values: 'cdz' }],
  [/^lua[0-9.]*$/, { code: 'e', values: 'l' }],
];

/** Commands with an option whose value a new shell runs. */
const SHELL_CODE_OPTION: Record<string, string> = { su: '-c', runuser: '-c', script: '-c' };
/** Commands whose arguments must all be literal: ssh joins them into a remote shell command; the others expand or load what they are given. */
const LITERAL_ONLY = new Set(['ssh', 'compgen', 'complete', 'enable', 'hash', 'watch']);

const basename = (word: ShellWord | undefined): string | undefined => word?.literal?.split('/').pop();
const isOption = (word: ShellWord | undefined): boolean => word?.literal !== undefined && word.literal.length > 1 && /^[-+]/.test(word.literal);

/** What `command` does with its words. */
export function readCommand(command: SimpleCommand): CommandReading {
  const reading = emptyReading();
  if (command.kind === 'for') {
    const [name, ...list] = command.words;
    if (name) {
      reading.names.push({ word: name, runner: 'for' });
      const values = command.words.length > 1 || /\bin\b/.test(command.source.slice(name.end, command.end)) ? list : undefined;
      if (name.literal !== undefined) addWrite(reading, command, name.literal, `for ${name.literal} in …`, values, { scalar: true });
    }
    return reading;
  }
  if (command.kind === 'cond') {
    command.words.forEach((word, k) => {
      const next = command.words[k + 1];
      const previous = command.words[k - 1];
      if (word.literal !== undefined && ARITHMETIC_TESTS.has(word.literal)) {
        if (previous) reading.arithmetic.push({ word: previous, kind: 'comparison' });
        if (next) reading.arithmetic.push({ word: next, kind: 'comparison' });
      }
      if ((word.literal === '-v' || word.literal === '-R') && next) reading.names.push({ word: next, runner: '[[ -v ]]' });
    });
    return reading;
  }
  for (const word of command.assignments) readAssignment(reading, command, word, '');
  readInvocation(reading, command, command.words, 0);
  return reading;
}

/** Skips a wrapper's options and positional words; returns the index of the command it runs. */
function skipOptions(reading: CommandReading, command: SimpleCommand, words: readonly ShellWord[], k: number, name: string, wrapper: Wrapper): number {
  let positionals = wrapper.positionals ?? 0;
  while (k < words.length) {
    const word = words[k] as ShellWord;
    const text = word.literal;
    if (text === '--') return k + 1;
    if (isOption(word) && text !== undefined) {
      if (name === 'xargs' && /^-(?:i|-replace)$/.test(text)) reading.replacements.push('{}');
      const valueAt = [...text.slice(1)].findIndex((letter) => wrapper.values.includes(letter));
      if (!text.startsWith('--') && valueAt !== -1) {
        const letter = text[valueAt + 1] as string;
        const attached = text.slice(valueAt + 2);
        const value = attached === '' ? words[k + 1]?.literal : attached;
        if (name === 'xargs' && letter === 'I' && value) reading.replacements.push(value);
        if (name === 'env' && letter === 'S') {
          const split = attached === '' ? words[k + 1] : word;
          if (split) reading.commandNames.push(split);
        }
        if (name === 'flock' && letter === 'c' && words[k + 1]) reading.code.push({ word: words[k + 1] as ShellWord, runner: 'flock -c', shell: 'new' });
        k += attached === '' ? 2 : 1;
      } else k++;
      continue;
    }
    if (name === 'env' && word.assignment === undefined && text !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      k++;
      continue;
    }
    if (name === 'env' && word.literal === undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.source.slice(word.start, word.end))) {
      const variable = command.source.slice(word.start, word.end).split('=')[0] as string;
      if (PATH_VARIABLES.has(variable)) reading.paths.push({ word, runner: variable });
      if (CODE_VARIABLES.has(variable)) reading.code.push({ word, runner: variable, shell: 'same' });
      k++;
      continue;
    }
    if (positionals > 0) {
      positionals--;
      k++;
      continue;
    }
    return k;
  }
  return k;
}

/** The command at `words[k]` and what it does with the words after it. */
function readInvocation(reading: CommandReading, command: SimpleCommand, words: readonly ShellWord[], k: number): void {
  const first = words[k];
  if (!first) return;
  reading.commandNames.push(first);
  const name = basename(first);
  if (name === undefined) return;
  const rest = words.slice(k + 1);
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    const options = rest
      .slice(
        0,
        Math.max(
          0,
          rest.findIndex((word) => !isOption(word)),
        ),
      )
      .concat(rest.every(isOption) ? rest : []);
    if (name === 'command' && options.some((word) => /^-[a-zA-Z]*[vV]/.test(word.literal ?? ''))) return; // command -v: a lookup
    const next = skipOptions(reading, command, words, k + 1, name, wrapper);
    const shellFlag = (name === 'sudo' || name === 'doas') && words.slice(k + 1, next).some((word) => /^-[a-zA-Z]*[si]/.test(word.literal ?? ''));
    if (shellFlag) addJoinedCode(reading, words.slice(next), `${name} -s`, 'new');
    else readInvocation(reading, command, words, next);
    return;
  }
  if (SHELLS.has(name)) return readShell(reading, rest, name);
  const interpreter = INTERPRETERS.find(([pattern]) => pattern.test(name))?.[1];
  if (interpreter) return readInterpreter(reading, rest, name, interpreter);
  // gawk: -E is a program file too, -i and -l load code (a library, an extension), -W takes a value.
  if (/^(?:g|m|n)?awk$/.test(name)) return readProgramCommand(reading, rest, name, { code: 'e', file: 'fE', values: 'vFW', loads: 'il' });
  if (/^g?sed$/.test(name)) return readProgramCommand(reading, rest, name, { code: 'e', file: 'f', values: 'l', loads: '' });
  if (SHELL_CODE_OPTION[name]) readShellCodeOption(reading, rest, name);
  // sg GROUP COMMAND runs its command through sh -c.
  if (name === 'sg')
    addJoinedCode(
      reading,
      rest.slice(1).filter((word) => word.literal !== '-c'),
      'sg',
      'new',
    );
  if (LITERAL_ONLY.has(name)) for (const word of rest) reading.literalOnly.push({ word, runner: name });
  if (name === 'git') readGitOptions(reading, rest);
  if (name === 'find') return readFind(reading, command, words, k + 1);
  // Programs svc does not know may run a shell too (`docker exec box sh -c …`, `kubectl exec … -- bash -c …`).
  const shell = rest.findIndex((word, j) => SHELLS.has(basename(word) ?? '') && /^-[a-zA-Z]*c/.test(rest[j + 1]?.literal ?? ''));
  if (shell !== -1) readShell(reading, rest.slice(shell + 1), basename(rest[shell]) as string);
  readBuiltin(reading, command, rest, name);
}

function readShell(reading: CommandReading, rest: readonly ShellWord[], name: string): void {
  let codeFlag = false;
  let stdinFlag = false;
  let j = 0;
  for (; j < rest.length && isOption(rest[j]); j++) {
    const text = rest[j]?.literal as string;
    if (text === '--' || text === '-') {
      j++;
      break;
    }
    if (/^[-+][oO]$/.test(text) || text === '--rcfile' || text === '--init-file') j++;
    else if (!text.startsWith('--')) {
      codeFlag ||= text.includes('c');
      stdinFlag ||= text.includes('s');
    }
  }
  const operand = rest[j];
  if (codeFlag && operand) reading.code.push({ word: operand, runner: `${name} -c`, shell: 'new' });
  else if (operand && !stdinFlag) addProgramPath(reading, operand, name, 'new');
  else reading.stdinCode.push({ runner: name, shell: 'new' });
}

function readInterpreter(reading: CommandReading, rest: readonly ShellWord[], name: string, spec: { code: string; values: string; module?: string }): void {
  let code = false;
  for (let j = 0; j < rest.length; j++) {
    const word = rest[j] as ShellWord;
    const text = word.literal;
    if (!isOption(word) || text === undefined || text.startsWith('--')) {
      if (text === '--eval' || text === '--print' || text?.startsWith('--eval=') || text?.startsWith('--print=')) {
        code = true;
        const value = text.includes('=') ? word : rest[++j];
        if (value) reading.code.push({ word: value, runner: `${name} ${text.split('=')[0]}`, shell: 'other' });
        continue;
      }
      if (text?.startsWith('--')) continue;
      if (code) return;
      addProgramPath(reading, word, name, 'other');
      return;
    }
    for (let l = 1; l < text.length; l++) {
      const letter = text[l] as string;
      const attached = text.slice(l + 1) !== '';
      if (spec.code.includes(letter)) {
        code = true;
        const value = attached ? word : rest[++j];
        if (value) reading.code.push({ word: value, runner: `${name} -${letter}`, shell: 'other' });
        break;
      }
      if (letter === spec.module) return; // a module: the rest are its arguments
      if (spec.values.includes(letter)) {
        if (!attached) j++;
        break;
      }
    }
  }
  if (!code) reading.stdinCode.push({ runner: name, shell: 'other' });
}

/** awk and sed: a program given with an option, read from a file, or as the first operand. */
/** Long options of awk and sed: which take a value, and which name code or a file of code. */
const LONG_VALUES = new Set(['--assign', '--field-separator', '--line-length', '--dump-variables', '--profile', '--debug', '--pretty-print']);
const LONG_LOADS = new Set(['--include', '--load', '--exec']);

function readProgramCommand(
  reading: CommandReading,
  rest: readonly ShellWord[],
  name: string,
  spec: { code: string; file: string; values: string; loads: string },
): void {
  let program = false;
  for (let j = 0; j < rest.length; j++) {
    const word = rest[j] as ShellWord;
    const text = word.literal;
    if (text === '--') {
      if (!program && rest[j + 1]) reading.code.push({ word: rest[j + 1] as ShellWord, runner: name, shell: 'other' });
      return;
    }
    if (text?.startsWith('--')) {
      const [option, value] = text.split('=', 2) as [string, string | undefined];
      const isCode = option === '--expression' || option === '--source';
      if (isCode || option === '--file' || LONG_LOADS.has(option)) {
        program ||= !LONG_LOADS.has(option) || option === '--exec';
        const target = value !== undefined ? word : rest[++j];
        if (target && isCode) reading.code.push({ word: target, runner: name, shell: 'other' });
        // A program file may be the standard input (`--file=/dev/stdin`): code read from there.
        else if (target) addProgramPath(reading, target, name, 'other');
      } else if (LONG_VALUES.has(option) && value === undefined && !['--dump-variables', '--profile', '--debug', '--pretty-print'].includes(option)) j++;
      continue;
    }
    if (!isOption(word) || text === undefined) {
      if (!program) reading.code.push({ word, runner: name, shell: 'other' });
      return;
    }
    for (let l = 1; l < text.length; l++) {
      const letter = text[l] as string;
      const attached = text.slice(l + 1) !== '';
      if (letter === spec.code || spec.file.includes(letter) || spec.loads.includes(letter)) {
        program ||= !spec.loads.includes(letter);
        const target = attached ? word : rest[++j];
        if (target && letter === spec.code) reading.code.push({ word: target, runner: `${name} -${letter}`, shell: 'other' });
        else if (target) addProgramPath(reading, target, `${name} -${letter}`, 'other');
        break;
      }
      if (spec.values.includes(letter) || (name.endsWith('sed') && letter === 'i')) {
        if (!attached && letter !== 'i') j++;
        break;
      }
    }
  }
}

/** find … -exec CMD … ; (and -execdir, -ok, -okdir): CMD is a command, `{}` a file name. */
function readFind(reading: CommandReading, command: SimpleCommand, words: readonly ShellWord[], k: number): void {
  for (let j = k; j < words.length; j++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(words[j]?.literal ?? '')) continue;
    const end = words.findIndex((word, e) => e > j && (word.literal === ';' || word.literal === '+'));
    const inner = emptyReading();
    inner.replacements.push('{}');
    readInvocation(inner, command, words.slice(j + 1, end === -1 ? words.length : end), 0);
    mergeReading(reading, inner);
    j = end === -1 ? words.length : end;
  }
}

/**
 * git's options before its subcommand: `-c key=value` sets configuration, and some keys are
 * commands git runs (`core.pager`, `core.sshCommand`, `alias.x=!…`): code. (`--upload-pack` and
 * the like, after the subcommand, are option injection into a program: the sandbox's part.)
 */
function readGitOptions(reading: CommandReading, rest: readonly ShellWord[]): void {
  for (let j = 0; j < rest.length && isOption(rest[j]); j++) {
    const text = rest[j]?.literal as string;
    if (text === '-c' && rest[j + 1]) reading.code.push({ word: rest[++j] as ShellWord, runner: 'git -c', shell: 'other' });
    else if (/^-[CcP]$|^--(?:git-dir|work-tree|namespace|exec-path)$/.test(text)) j++;
  }
}

/** Whether a program takes code, or a command to run, through an option: a computed option word may make a value code. */
export function runsCodeByOption(name: string): boolean {
  return (
    SHELLS.has(name) ||
    INTERPRETERS.some(([pattern]) => pattern.test(name)) ||
    /^(?:g|m|n)?awk$|^g?sed$/.test(name) ||
    name in SHELL_CODE_OPTION ||
    name in WRAPPERS ||
    ['git', 'find', 'ssh', 'sg'].includes(name)
  );
}

/**
 * su, runuser, script: the command their option gives a shell — `-c CMD`, `-lc CMD` (the option
 * last in a cluster), `-cCMD`, `--command CMD`, `--command=CMD`, `--session-command CMD`.
 */
function readShellCodeOption(reading: CommandReading, rest: readonly ShellWord[], name: string): void {
  rest.forEach((word, j) => {
    const text = word.literal;
    const runner = `${name} -c`;
    const next = rest[j + 1];
    if (text === undefined) {
      // `--command="$v"`: the option is literal, its value is not.
      if (/^--(?:session-)?command=/.test(word.source.slice(word.start, word.end))) reading.code.push({ word, runner, shell: 'new' });
      return;
    }
    if (/^--(?:session-)?command=/.test(text)) reading.code.push({ word, runner, shell: 'new', text: text.slice(text.indexOf('=') + 1) });
    else if ((/^--(?:session-)?command$/.test(text) || /^-[A-Za-z]*c$/.test(text)) && next) reading.code.push({ word: next, runner, shell: 'new' });
    else if (/^-[A-Za-z]*c./.test(text) && !text.startsWith('--')) reading.code.push({ word, runner, shell: 'new', text: text.slice(text.indexOf('c') + 1) });
  });
}
