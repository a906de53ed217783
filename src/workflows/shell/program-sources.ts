/**
 * Where the code a command runs comes from, for check.ts: the program it reads from its standard
 * input, the files the script writes (running one runs what was written), and the text a word of
 * code holds once its quotes are removed.
 */

import { posix } from 'node:path';
import { snippet, textOf, type ShellOutline, type ShellWord, type SimpleCommand } from './outline.js';
import { STANDARD_INPUT } from './reading.js';

/**
 * The program a command reads from its standard input: the text of a literal here-document or
 * here-string, or where it comes from otherwise (a pipe, a file, whatever the script's own input is).
 */
export function programInput(command: SimpleCommand): string | { from: string } | { file: ShellWord } {
  const input = [...command.redirects].reverse().find((redirect) => /^0?<(?:<-?|<<)?$/.test(redirect.op));
  if (input?.heredoc) {
    if (input.heredoc.expanded) return { from: 'a here-document that expands values' };
    return input.heredoc.body ? textOf(input.heredoc.body) : '';
  }
  if (input?.op.endsWith('<<<') && input.target) return input.target.literal ?? { from: snippet(textOf(input.target)) };
  if (input?.target && !(input.target.literal !== undefined && STANDARD_INPUT.test(input.target.literal))) return { file: input.target };
  return { from: input?.target ? snippet(textOf(input.target)) : command.piped ? 'a pipe' : 'its standard input' };
}

/** A path as written, `./` and doubled slashes left out: `.//run.sh` is `run.sh`. */
export const normalPath = (path: string): string => posix.normalize(path).replace(/^\.\//, '');

/**
 * The text a word of code holds once bash removes its quotes, its expansions kept as written
 * (`"rm -f $tmp"` → `rm -f $tmp`); undefined for quoting mixed in ways not worth following.
 */
export function unquoted(word: string): string | undefined {
  const doubled = /^"((?:[^"\\]|\\.)*)"$/s.exec(word);
  if (doubled) return (doubled[1] as string).replace(/\\([$`"\\\n])/g, '$1');
  return /["'\\]/.test(word) ? undefined : word;
}

/** The literal paths the script writes by redirection (`> f`, `>> f`, `&> f`) or with `tee`. */
export function writtenFiles(outline: ShellOutline): Set<string> {
  const written = new Set<string>();
  for (const command of outline.commands) {
    for (const redirect of command.redirects) {
      if (/^(?:[0-9]*|&)>(?:>|\|)?$/.test(redirect.op) && redirect.target?.literal !== undefined) written.add(normalPath(redirect.target.literal));
    }
    if (command.words[0]?.literal?.split('/').pop() === 'tee') {
      for (const word of command.words.slice(1)) if (word.literal !== undefined && !word.literal.startsWith('-')) written.add(normalPath(word.literal));
    }
  }
  return written;
}
