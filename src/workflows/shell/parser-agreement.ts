/**
 * Whether svc's scanner read a script as bash does (docs/decisions.md, "Parse as bash parses"). The
 * checks of outside values see only what the scanner found; where it reads a stretch of the script
 * as quoted text, a comment or a here-document body and bash runs it, every command there goes
 * unchecked (an outside review found such scripts: a here-document closed inside `$(…)`, an
 * apostrophe in a comment inside an array). So a script that takes values from outside is also
 * read by a maintained bash parser (bash-parser.ts), and refused, with the place, when:
 *
 * - the parser cannot read it as bash would (an unterminated here-document, a delimiter continued
 *   with `\`-newline, a quote never closed): svc cannot be sure what bash runs;
 * - it holds a NUL byte, which bash drops while svc would read past it;
 * - a command the parser finds does not start where the scanner found a word of a command: the
 *   two disagree there;
 * - a here-document delimiter is more than a plain word or one quoted whole (`<<$'EOF'`,
 *   `<<E\⏎OF`): the parser itself reads some of these differently from bash.
 *
 * Code handed on as text (`eval '…'`, `bash -c '…'`, backticks) is the scanner's alone: the parser
 * sees a string there.
 */

import type { Node, Tree } from 'web-tree-sitter';
import { OUTPUT_REF_SOURCE } from '../output-ref.js';
import { parseBash } from './bash-parser.js';
import { snippet, type ShellOutline } from './outline.js';

/** What the parser reads as text handed on: its inside is not compared. */
const OPAQUE = new Set(['heredoc_body', 'raw_string', 'string_content', 'ansi_c_string', 'comment']);

const place = (node: Node) => `line ${node.startPosition.row + 1} col ${node.startPosition.column + 1}`;

/** The first node the parser could not read: an ERROR, or a token it had to assume (MISSING). */
function firstError(node: Node): Node | undefined {
  if (node.isError || node.isMissing) return node;
  if (!node.hasError) return undefined;
  for (const child of node.children) {
    const found = child && firstError(child);
    if (found) return found;
  }
  return node;
}

/**
 * Whether an assignment belongs to a declaration (`local a=1`, read by the scanner as words), an
 * array's elements, or arithmetic (`for (( i = 0; … ))`, `(( a = 1 ))`), which the scanner reads
 * as arithmetic regions instead.
 */
function withinDeclarationOrArray(node: Node): boolean {
  for (let at = node.parent; at; at = at.parent) {
    if (at.type === 'declaration_command' || at.type === 'array' || at.type === 'c_style_for_statement' || at.type.includes('arithmetic')) return true;
  }
  return false;
}

/** Whether `node` sits in code handed on as text (a backtick substitution, inside which the parser and the scanner read differently by design). */
function handedOn(node: Node): boolean {
  for (let at = node.parent; at; at = at.parent) {
    if (OPAQUE.has(at.type)) return true;
    if (at.type === 'command_substitution' && at.firstChild?.type === '`') return true;
  }
  return false;
}

/**
 * The problems of `script` (which takes values from outside) where the parser and the scanner's
 * `outline` disagree; none when they agree; undefined while the parser is not loaded (bash-parser.ts).
 */
export function parserDisagreements(script: string, outline: ShellOutline, tree: Tree): string[] {
  if (script.includes('\0')) return ['the script holds a NUL byte, which bash drops and svc does not: remove it'];
  {
    const broken = firstError(tree.rootNode);
    if (broken) {
      const what = broken.isMissing ? `a missing ${broken.type}` : snippet(broken.text);
      return [
        `svc's bash parser cannot read ${place(broken)} (${what}) as bash would, and a script that takes values from outside must be one it reads: close a quote or here-document left open, and write commands plainly (no brace expansion as a command name)`,
      ];
    }
    // Each command bash runs must start where the scanner found a word of a command (a keyword
    // such as `time` or `coproc` may be a word of its own to the one, part of the command to the other).
    const names = new Set(
      outline.commands.filter((command) => command.source === script).flatMap((command) => [command.start, ...command.words.map((word) => word.start)]),
    );
    for (const node of tree.rootNode.descendantsOfType('command_name')) {
      if (!node || handedOn(node) || names.has(node.startIndex)) continue;
      return [
        `svc reads this script differently from bash at ${place(node)} (${snippet(node.text)}): bash runs a command there that svc took for quoted text, a comment or a here-document; simplify the quoting, comments or here-documents before it`,
      ];
    }
    // Each assignment bash makes standing as a command (or before one) must be one the scanner
    // found: `arr[ $v ]=1`, with spaces in its index, is an assignment to bash and a command to a
    // reader that splits at the spaces.
    const assignments = new Set(
      outline.commands.filter((command) => command.source === script).flatMap((command) => command.assignments.map((word) => word.start)),
    );
    for (const node of tree.rootNode.descendantsOfType('variable_assignment')) {
      if (!node || handedOn(node) || assignments.has(node.startIndex) || withinDeclarationOrArray(node)) continue;
      return [
        `svc reads this script differently from bash at ${place(node)} (${snippet(node.text)}): bash makes an assignment there that svc read as a command; write the index without spaces`,
      ];
    }
    // `cmd 0<file`: tree-sitter reads the descriptor 0 as an argument of the command (measured; `2>`
    // and `3<` it reads as bash does), so the command it sees is not the one bash runs.
    for (const node of tree.rootNode.descendantsOfType('command')) {
      const glued = node?.childrenForFieldName('argument').find((arg) => arg && /^[0-9]+$/.test(arg.text) && /[<>]/.test(script[arg.endIndex] ?? ''));
      if (glued && !handedOn(glued))
        return [
          `svc's bash parser reads ${snippet(glued.text + (script[glued.endIndex] ?? ''))} at ${place(glued)} as an argument and a redirection, bash as a redirection of descriptor ${glued.text}: write the redirection without the 0 (<file), or with a space before the argument`,
        ];
    }
    // A line continuation inside an operator (`$(\⏎(`, `<\⏎<`): bash joins the lines before it reads
    // them, making `$((` of what both readers took for `$(` and `(`.
    for (const match of script.matchAll(/([^\n]?)\\\n(.?)/g)) {
      if (!/[$(<>&|;{]/.test(match[1] ?? '') && !/[(<>&|;{]/.test(match[2] ?? '')) continue;
      const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
      const node = tree.rootNode.descendantForIndex(offset);
      if (!node || ['raw_string', 'comment'].includes(node.type) || handedOn(node) || node.type === 'heredoc_body' || node.parent?.type === 'heredoc_body')
        continue;
      return [
        `a line continuation at ${place(node)} joins an operator across lines (${snippet(match[0])}), which bash reads differently from svc: write the operator on one line`,
      ];
    }
    // A here-document delimiter other than a plain word or one quoted whole: the parser reads
    // some of these differently from bash (`<<$'EOF'`, `<<E\⏎OF`), and so may svc.
    for (const node of tree.rootNode.descendantsOfType('heredoc_start')) {
      if (!node || handedOn(node) || /^(?:[A-Za-z0-9_.-]+|'[A-Za-z0-9_.-]+'|"[A-Za-z0-9_.-]+")$/.test(node.text)) continue;
      return [
        `the here-document delimiter ${snippet(node.text)} at ${place(node)} is one svc cannot be sure bash reads as it does: write it as a plain word (<<EOF) or quoted whole (<<'EOF')`,
      ];
    }
    return [];
  }
}

/**
 * `script` as bash reads it, or undefined while the parser is not loaded (bash-parser.ts); the
 * caller deletes the tree. `$<id>.output` is svc's, not bash's: the parser reads each as the
 * variable expansion it becomes, written in as many characters, so the parser's offsets are the
 * script's.
 */
export function parseScript(script: string): Tree | undefined {
  return parseBash(script.replace(new RegExp(OUTPUT_REF_SOURCE, 'g'), (ref) => ref.replaceAll('-', '_').replace(/\.output$/, '_output')));
}
