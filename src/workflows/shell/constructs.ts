/**
 * Constructs of a bash script that the checks of outside values (check.ts) refuse whole, in a
 * script that takes values from outside (docs/decisions.md, "Parse as bash parses"): an unquoted
 * operand of `[` that a value splits into operators, and constructs that change how later words
 * are read, or run the words they are given, in ways svc does not follow.
 */

import type { NameFacts } from './names.js';
import { snippet, textOf, type SimpleCommand } from './outline.js';

export const TAKES = 'in a script that takes values from outside';

/** Commands that run the words after them as a command (or as code): given values as words, they run them. */
const RUNS_ITS_WORDS = new Set([
  'eval',
  'source',
  '.',
  'exec',
  'command',
  'builtin',
  'env',
  'sudo',
  'doas',
  'nice',
  'nohup',
  'timeout',
  'stdbuf',
  'setsid',
  'time',
  'xargs',
  'bash',
  'sh',
  'dash',
  'zsh',
]);

/** The index of the `)` that closes the `(` at `open`, quotes inside skipped; the text's end when none does. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quote !== "'") i++;
    else if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** Whether `text` (a word as written) has a `$` outside quotes; a `$(…)` inside "…" is quoted whole. */
function hasUnquotedDollar(text: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quote !== "'") i++;
    else if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '$' && text[i + 1] === '(') i = closingParen(text, i + 1);
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '$') return true;
  }
  return false;
}

/**
 * Constructs that change how later words are read, or run the words they are given, in ways
 * svc does not follow (issue 31): refused in a script that takes values from outside.
 */
function unfollowed(command: SimpleCommand, problems: string[]): void {
  const words = command.words.map((word) => word.literal);
  const name = words[0];
  if (name === 'shopt' && words.includes('-s') && words.includes('expand_aliases'))
    problems.push(`shopt -s expand_aliases makes aliases commands svc does not see ${TAKES}: call the command or a function instead`);
  const options = words.slice(1);
  if (name === 'set' && (options.some((word) => /^-[a-zA-Z]*k/.test(word ?? '')) || (options.includes('-o') && options.includes('keyword'))))
    problems.push(`set -k makes every NAME=value argument an environment assignment of the command ${TAKES}: leave it off`);
  if ((name === 'mapfile' || name === 'readarray') && words.some((word) => /^-[a-zA-Z]*C/.test(word ?? ''))) {
    const at = words.findIndex((word) => /^-[a-zA-Z]*C$/.test(word ?? ''));
    const callback = at >= 0 ? words[at + 1] : undefined;
    if (callback === undefined || RUNS_ITS_WORDS.has(callback))
      problems.push(
        `${name} -C ${callback ?? '…'} hands each line it reads to a command that runs its words ${TAKES}: use a function of the script as the callback`,
      );
  }
  // `time -p CMD` and `jobs -x CMD` run CMD: its name must be literal, as any command's.
  const first = command.words[0];
  const timed = first !== undefined && first.literal === '-p' && /\btime\s+$/.test(first.source.slice(command.start, first.start));
  const runAt = timed ? 1 : name === 'jobs' && words[1] === '-x' ? 2 : -1;
  const ran = runAt > 0 ? command.words[runAt] : undefined;
  if (ran !== undefined && ran.literal === undefined)
    problems.push(`the command name ${snippet(textOf(ran))} must be literal text ${TAKES}: a value there chooses what runs`);
  const xargs = words.indexOf('xargs');
  if (xargs >= 0) {
    const runs = words.slice(xargs + 1).find((word) => word !== undefined && !word.startsWith('-'));
    if (runs !== undefined && RUNS_ITS_WORDS.has(runs))
      problems.push(`xargs ${runs} runs the words xargs reads as a command ${TAKES}: give xargs the command to run, and the values as its arguments`);
  }
}

/**
 * `[ $v == yes ]`: unquoted, a value is split into words that `[` (and `test`) read as their own
 * operators — `-v a[$(…)]` evaluates an array index, running the `$(…)`. Such an operand must be
 * quoted, or hold only what the script chose.
 */
function testOperands(command: SimpleCommand, facts: NameFacts, problems: string[]): void {
  const name = command.words[0]?.literal;
  if (name !== '[' && name !== 'test') return;
  for (const word of command.words.slice(1)) {
    // `$<id>.output` is rewritten to a quoted expansion (references.ts): it is one word, quoted or not.
    if (word.literal !== undefined || word.expansions.every((expansion) => expansion.kind === 'splice')) continue;
    if (!hasUnquotedDollar(textOf(word)) || facts.cleanWord(word)) continue;
    problems.push(
      `${name} reads the unquoted ${snippet(textOf(word))} as words of its own ${TAKES}: a value split there becomes an operator (-v a[$(…)] runs the $(…)); quote it: "${snippet(textOf(word)).replaceAll('"', '')}"`,
    );
  }
}

/** The declaration builtins: with `-a` or `-A` they read a value assigned in them as a compound assignment. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'readonly', 'export']);

/**
 * `local -a arr="$v"`: with `-a` or `-A`, bash reads the value as a compound assignment, so
 * `(a[$(…)]=1)` evaluates the index. Such a value must hold only what the script chose.
 */
function arrayDeclarations(command: SimpleCommand, facts: NameFacts, problems: string[]): void {
  const name = command.words[0]?.literal;
  if (!name || !DECLARATIONS.has(name)) return;
  if (!command.words.slice(1).some((word) => /^[-+][a-zA-Z]*[aA]/.test(word.literal ?? ''))) return;
  for (const word of command.words.slice(1)) {
    const value = word.assignment?.value;
    if (value === undefined || value.literal !== undefined || facts.cleanWord(value)) continue;
    problems.push(
      `${name} -a/-A reads the value of ${snippet(textOf(word))} as a compound assignment ${TAKES}, so an index in it is evaluated, running any $(…) in it: assign the array with ( … ) from checked values`,
    );
  }
}

/** The problems of `command`'s constructs; none when it has none of them. */
export function constructProblems(command: SimpleCommand, facts: NameFacts): string[] {
  const problems: string[] = [];
  testOperands(command, facts, problems);
  arrayDeclarations(command, facts, problems);
  unfollowed(command, problems);
  return problems;
}
