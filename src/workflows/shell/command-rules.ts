/**
 * What a command does with a value the script did not choose, for the positive policy
 * (placement.ts): svc's reading of commands (commands.ts, through command-nodes.ts) says which
 * words are code, a file that runs, a command, a variable name or arithmetic; this adds what a
 * reading of literal words cannot see — a command or an option computed from variables, a
 * builtin that may read the value as one of its options, a program reading code from where a
 * value flows, a file of the run's artifacts run through a variable, and writes to the variables
 * bash runs (`read PS4`).
 */

import type { Node } from 'web-tree-sitter';
import { runsCodeByOption } from './commands.js';
import { isTrusted, type Kind } from './kind.js';
import { readCommandAs, type NodeReading } from './command-nodes.js';
import { snippet, type ShellWord } from './outline.js';
import { arithmetic, unquoted, VALUES, type Refuse } from './placement-words.js';
import { CODE_VARIABLES, PATH_VARIABLES } from './reading.js';
import { childrenOf, commandNameOf, nodesBelow } from './syntax.js';
import type { Taint } from './taint.js';

/**
 * Builtins with options that make a value a name, code or a file to load (`printf -v`, `set -k`,
 * `complete -C`, `enable -f` …), and the letters of theirs that take a value.
 */
const OPTION_BUILTINS = new Map<string, string>([
  ['printf', 'v'],
  ['read', 'adinNptu'],
  ['mapfile', 'dnOsucC'],
  ['readarray', 'dnOsucC'],
  ['unset', ''],
  ['wait', 'p'],
  ['hash', 'p'],
  ['trap', ''],
  ['getopts', ''],
  ['exec', 'a'],
  ['command', ''],
  ['builtin', ''],
  ['enable', 'f'],
  ['complete', 'oAGWFCXPS'],
  ['compgen', 'oAGWFCXPS'],
  ['set', 'o'],
  ['shopt', ''],
  ['bind', 'mfqurx'],
  ['fc', 'el'],
  ['jobs', ''],
  ['history', 'd'],
]);

/** Whether the word after `before` is where a builtin still reads options: every word before it an option or an option's value, none `--`. */
function inOptions(before: readonly ShellWord[], takesValue: string): boolean {
  for (let k = 0; k < before.length; k++) {
    const text = before[k]?.literal;
    if (text === undefined || text === '--' || !/^[-+]./.test(text)) return false;
    const letter = [...text.slice(1)].findIndex((l) => takesValue.includes(l));
    if (letter !== -1 && letter === text.length - 2) k++; // its value is the next word
  }
  return true;
}

/** An argument of a command: data, unless the command runs it, reads it as an option, or it is unquoted. */
export function argumentPlace(command: Node, argument: Node, quoted: boolean, kind: Kind, taint: Taint, read = taint.readingOf(command)): string | undefined {
  const role = wordRole(command, argument, read);
  if (role !== undefined) return role;
  // A command computed from variables (`"$cmd" "$v"`, `ev${e}al`): what it does with the value is
  // unknown — unless the variable holds literal words the script set once (`cmd=(git status)`).
  const computed = read.reading.commandNames.find((word) => word.literal === undefined && word.start < argument.startIndex);
  if (computed) {
    const name = read.nodeOf.get(computed);
    const literal = name && name.id === command.childForFieldName('name')?.firstNamedChild?.id ? taint.literalWords(name) : undefined;
    if (literal === undefined)
      return `the command ${snippet(computed.source.slice(computed.start, computed.end))} is computed, so svc cannot tell what it does with its arguments: name it literally`;
    return argumentPlace(command, argument, quoted, kind, taint, readCommandAs(command, computed.source, literal));
  }
  const at = read.words.findIndex((word) => read.nodeOf.get(word)?.id === argument.id);
  const before = read.words.slice(1, at === -1 ? undefined : at);
  const program = read.words[0]?.literal?.split('/').pop() ?? '';
  const option = before.find((word) => word.literal === undefined);
  if (option && runsCodeByOption(program))
    return `${program} takes code through its options, and ${snippet(option.source.slice(option.start, option.end))} before it is computed: write options literally`;
  const takesValue = OPTION_BUILTINS.get(program);
  if (takesValue !== undefined && inOptions(before, takesValue))
    return `${program} may read it as one of its options (${program} -v names a variable, and others run code): put -- before it, or give a literal first operand (printf '%s' "$v")`;
  if (!quoted && kind === 'outside') return unquoted(argument);
  return undefined;
}

/** What svc's reading of commands says the argument is to its command: code, a file that runs, a command, a name, arithmetic. */
function wordRole(command: Node, argument: Node, { reading, nodeOf }: NodeReading): string | undefined {
  const is = (word: ShellWord) => nodeOf.get(word)?.id === argument.id;
  const code = reading.code.find((use) => is(use.word));
  if (code) return `${code.runner} runs it as code: pass values as arguments or environment variables instead`;
  const path = reading.paths.find((use) => is(use.word));
  if (path) return `${path.runner} runs or loads the file it names: name the file literally`;
  if (reading.commandNames.some(is)) return `${commandNameOf(command) ?? 'the command'} runs it as a command: name commands literally`;
  const name = reading.names.find((use) => is(use.word));
  if (name) return `${name.runner} reads it as a variable name, evaluating an index in it and running any $(…) there`;
  if (reading.arithmetic.some((use) => is(use.word))) return arithmetic();
  const literal = reading.literalOnly.find((use) => is(use.word));
  if (!literal) return undefined;
  return literal.runner === 'ssh'
    ? "ssh hands its words to a shell on the remote host: send values on standard input: printf '%s' \"$v\" | ssh host 'read -r v; …'"
    : `${literal.runner} expands or loads it`;
}

/** Whether a redirection feeds its command's standard input (not `>`, `>>`, `&>`). */
const isInput = (redirect: Node): boolean => redirect.type !== 'file_redirect' || !childrenOf(redirect).some((part) => /^(?:&?>|>)/.test(part.type));

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

/** A here-document, here-string or input file of a command that reads code there (`bash`, `source /dev/stdin`, `bash /dev/fd/3 3< …`). */
export function codeInput(redirect: Node, taint: Taint): string | undefined {
  const command = redirectedCommand(redirect);
  const runner = command ? taint.readingOf(command).reading.stdinCode[0]?.runner : undefined;
  if (runner === undefined || !isInput(redirect)) return undefined;
  return `${runner} reads its program from there: what a value from outside puts there runs as code; pass values as arguments or environment variables`;
}

/** Code read from a pipe a value from outside flows through. */
export function pipedCode(command: Node, taint: Taint, refuse: Refuse): void {
  const runner = taint.readingOf(command).reading.stdinCode[0]?.runner;
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

/**
 * Files of the run's artifacts and the payload run through a variable (`f=$TRIGGER_PAYLOAD_FILE;
 * bash "$f"`), as input of a program that reads code there, or by a relative path after `cd` into them.
 */
export function commandProblems(command: Node, taint: Taint, refuse: Refuse): void {
  const { reading, nodeOf } = taint.readingOf(command);
  const outside = "runs a file of the run's artifacts or the payload, where node outputs and values from outside are written: read it as data instead";
  for (const { word, runner } of reading.paths) {
    const node = nodeOf.get(word);
    if (node && taint.leadsOutside(node)) refuse(node, `${runner} ${snippet(node.text)}`, outside);
    else if (node && taint.cdOutside && word.literal !== undefined && !word.literal.startsWith('/'))
      refuse(node, `${runner} ${snippet(node.text)}`, `after cd into the run's artifacts, it ${outside}`);
  }
  if (reading.stdinCode.length === 0) return;
  const statement = command.parent?.type === 'redirected_statement' ? command.parent : command;
  for (const redirect of [...statement.childrenForFieldName('redirect'), ...command.childrenForFieldName('redirect')]) {
    const target = redirect?.childForFieldName('destination') ?? redirect?.lastNamedChild;
    if (redirect && target && isInput(redirect) && taint.leadsOutside(target))
      refuse(target, `${reading.stdinCode[0]?.runner} < ${snippet(target.text)}`, outside);
  }
}

/** Writes of a value not chosen by the script to a variable bash runs or loads (`read PS4`, `printf -v BASH_ENV`, `for PS4 in …`). */
export function writeProblems(taint: Taint, refuse: Refuse): void {
  for (const write of taint.writes) {
    if (write.at.type === 'variable_assignment' || isTrusted(write.kind)) continue;
    if (CODE_VARIABLES.has(write.name) || PATH_VARIABLES.has(write.name) || write.name === 'BASH_CMDS')
      refuse(write.at, `${write.how} sets ${write.name} from a value the script did not choose`, `bash runs or loads what ${write.name} holds`);
  }
}
