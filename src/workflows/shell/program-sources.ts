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

/** Programs that write the files named by their operands. */
const WRITERS = new Set(['tee', 'cp', 'mv', 'ln', 'install', 'rsync', 'sponge', 'link']);

/** The literal paths the script writes: by redirection (`> f`, `>> f`, `&> f`), with `tee`, `cp`, `mv`, `ln` …, `dd of=`, `curl -o`, `wget -O`. */
export function writtenFiles(outline: ShellOutline): Set<string> {
  const written = new Set<string>();
  for (const command of outline.commands) {
    for (const redirect of command.redirects) {
      if (/^(?:[0-9]*|&)>(?:>|\|)?$/.test(redirect.op) && redirect.target?.literal !== undefined) written.add(normalPath(redirect.target.literal));
    }
    const program = command.words[0]?.literal?.split('/').pop() ?? '';
    const operands = command.words.slice(1).map((word) => word.literal);
    // Programs that write (or put in place) the files they name: every literal operand counts,
    // since svc does not read which is the destination (`cp "$TRIGGER_PAYLOAD_FILE" f; bash f`).
    if (WRITERS.has(program)) for (const operand of operands) if (operand !== undefined && !operand.startsWith('-')) written.add(normalPath(operand));
    if (program === 'dd') for (const operand of operands) if (operand?.startsWith('of=')) written.add(normalPath(operand.slice(3)));
    // curl -o FILE, wget -O FILE (and --output, --output-document).
    operands.forEach((operand, k) => {
      const output = /^(?:-o|-O|--output|--output-document)$/.test(operand ?? '') && ['curl', 'wget'].includes(program) ? operands[k + 1] : undefined;
      if (output !== undefined) written.add(normalPath(output));
    });
  }
  return written;
}
