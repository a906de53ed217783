/**
 * The command level of the bash scanner: command lists, simple commands with their assignments,
 * words and redirections, here-documents, `case`, `for`, `[[ … ]]`, `(( … ))`, subshells and
 * function definitions. See scan-words.ts for the word level and outline.ts for what it finds.
 */

import { OUTPUT_REF_SOURCE } from '../output-ref.js';
import type { ShellContext } from './contexts.js';
import { emptyOutline, type Redirect, type ShellOutline, type SimpleCommand } from './outline.js';
import { WordBuilder, type ScanState } from './scan-expansions.js';
import { WordScanner } from './scan-words.js';

/** Reserved words after which a command starts. */
const COMMAND_PREFIXES = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '{', '!', 'time', 'coproc']);
/** Reserved words that close a compound command (redirections may follow). */
const COMMAND_CLOSERS = new Set(['fi', 'done', '}', 'esac']);
const RESERVED = /^(?:if|then|else|elif|fi|do|done|while|until|for|select|case|esac|function|time|coproc|!|\{|\}|\[\[)(?=[\s;&|()<>]|$)/;
const DECLARATION_BUILTINS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
const REDIRECT = /^(?:(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<(?!\()|>(?!\())|&>>|&>)/;
const TOP: ScanState = { backtick: false, heredoc: false };

interface PendingHeredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly redirect: Redirect;
}

class Scanner extends WordScanner {
  private readonly heredocs: PendingHeredoc[] = [];

  scanScript(): void {
    let i = 0;
    while (i < this.n) i = this.scanList(i, TOP, 'top') + 1; // past a stray ')'
  }

  protected override scanNested(text: string): void {
    new Scanner(text, findRefsIn(text), null, 0, this.outline, this.depth + this.level + 1).scanScript();
  }

  protected override scanList(i: number, state: ScanState, term: 'top' | 'paren' | 'case'): number {
    let piped = false;
    while (i < this.n) {
      i = this.skipBlanks(i);
      const c = this.at(i);
      if (c === '') break;
      if (c === '#') i = this.skipComment(i, state);
      else if (c === '\n') i = this.newline(i, state);
      else if (c === ')')
        return i; // the end of a subshell, or a stray ')' that the caller steps over
      else if (term === 'case' && (this.src.startsWith(';;', i) || this.src.startsWith(';&', i) || this.isReserved(i, 'esac'))) return i;
      else if (c === ';' || c === '&' || c === '|') {
        const op = /^(?:&&|\|\||\|&|;;&|;;|;&|[;&|])/.exec(this.src.slice(i, i + 3))?.[0] ?? c;
        piped = op === '|' || op === '|&';
        i += op.length;
      } else {
        const next = this.scanCommand(i, state, piped);
        i = next > i ? next : i + 1;
        piped = false;
      }
    }
    return i;
  }

  private isReserved(i: number, word: string): boolean {
    return RESERVED.exec(this.src.slice(i, i + 9))?.[0] === word && (i === 0 || /[\s;&|()<>]/.test(this.at(i - 1)));
  }

  private skipComment(i: number, state: ScanState): number {
    const newline = this.src.indexOf('\n', i);
    const end = newline === -1 ? this.n : newline;
    this.recordRange(i, end, state.backtick ? 'backtick' : state.heredoc ? 'heredoc' : 'comment');
    return end;
  }

  /** A newline at `i`: the bodies of pending here-documents follow it. Returns where scanning goes on. */
  private newline(i: number, state: ScanState): number {
    let p = i + 1;
    for (const { delimiter, stripTabs, redirect } of this.heredocs.splice(0)) {
      const start = p;
      let bodyEnd = this.n;
      while (p < this.n) {
        const newline = this.src.indexOf('\n', p);
        const lineEnd = newline === -1 ? this.n : newline;
        const line = this.src.slice(p, lineEnd);
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) {
          bodyEnd = p;
          p = lineEnd + 1;
          break;
        }
        p = lineEnd + 1;
      }
      p = Math.min(p, this.n);
      const heredoc = redirect.heredoc as NonNullable<Redirect['heredoc']>;
      heredoc.body = { source: this.src, start, end: bodyEnd };
      if (!heredoc.quoted) heredoc.expanded = this.scanExpandingText(start, bodyEnd, { ...state, heredoc: true });
      this.recordRange(start, bodyEnd, state.backtick ? 'backtick' : 'heredoc');
    }
    return p;
  }

  /** The body of an unquoted here-document: expansions run, quotes are text. Returns whether it expands anything. */
  private scanExpandingText(i: number, end: number, state: ScanState): boolean {
    const b = new WordBuilder();
    while (i < end) {
      const c = this.at(i);
      if (c === '\\') i += 2;
      else if (c === '$') i = this.scanDollar(i, state, b, 'double-quoted');
      else if (c === '`') i = this.scanBacktick(i, state, b);
      else i++;
    }
    return b.expansions.length > 0;
  }

  private scanCommand(i: number, state: ScanState, piped: boolean): number {
    const command: SimpleCommand = {
      kind: 'simple',
      source: this.src,
      start: i,
      end: i,
      assignments: [],
      words: [],
      redirects: [],
      separator: '',
      piped,
    };
    let declaration = false;
    for (;;) {
      i = this.skipBlanks(i);
      const c = this.at(i);
      if (c === '' || c === '\n' || c === ';' || c === '|' || c === ')' || c === '#' || (c === '&' && this.at(i + 1) !== '>')) break;
      const starting = command.words.length === 0 && command.assignments.length === 0 && command.redirects.length === 0;
      const reserved = starting && command.kind === 'simple' ? RESERVED.exec(this.src.slice(i, i + 9))?.[0] : undefined;
      if (reserved !== undefined) {
        if (COMMAND_PREFIXES.has(reserved) || COMMAND_CLOSERS.has(reserved)) i += reserved.length;
        else if (reserved === 'for' || reserved === 'select') return this.scanFor(i + reserved.length, state, command);
        else if (reserved === 'case') i = this.scanCase(i + 4, state);
        else if (reserved === 'function') i = this.scanFunctionName(i + 8, state);
        else {
          command.kind = 'cond'; // [[
          i = this.scanCond(i + 2, state, command);
        }
        continue;
      }
      if (starting && this.src.startsWith('((', i)) {
        i = this.scanArithmetic(i + 2, { ...state, within: 'arithmetic' }, '))', 'arithmetic-command');
        continue;
      }
      if (c === '(' && starting) {
        i = this.scanSubshell(i, state);
        continue;
      }
      const redirect = REDIRECT.exec(this.src.slice(i, i + 40))?.[0];
      if (redirect !== undefined) {
        i = this.scanRedirect(i + redirect.length, redirect, state, command);
        continue;
      }
      if ((c === '<' || c === '>') && this.at(i + 1) === '(') {
        const end = this.scanSubshell(i + 1, state);
        const b = new WordBuilder();
        b.expand({ kind: 'process' });
        command.words.push(b.build(this.src, i, end));
        i = end;
        continue;
      }
      if (c === '(') {
        // `name ( )`: a function definition; its body follows as a command of its own.
        const close = /^\(\s*\)/.exec(this.src.slice(i, i + 20))?.[0];
        const name = command.words.length === 1 ? command.words[0]?.literal : undefined;
        if (close && name !== undefined) {
          this.outline.functions.add(name);
          return i + close.length;
        }
        i = this.scanSubshell(i, state);
        continue;
      }
      const word = this.scanWord(i, state, command.words.length === 0 || declaration ? 'assignable' : 'normal');
      if (word.assignment && command.words.length === 0) command.assignments.push(word);
      else {
        command.words.push(word);
        if (command.words.length === 1) declaration = DECLARATION_BUILTINS.has(word.literal ?? '');
      }
      i = word.end > i ? word.end : i + 1;
    }
    command.end = i;
    command.separator = this.separatorAt(i);
    if (command.kind !== 'simple' || command.words.length + command.assignments.length + command.redirects.length > 0) this.outline.commands.push(command);
    return i;
  }

  private scanSubshell(i: number, state: ScanState): number {
    if (!this.enter()) return this.n;
    const close = this.scanList(i + 1, state, 'paren');
    this.leave();
    return this.at(close) === ')' ? close + 1 : close;
  }

  private separatorAt(i: number): string {
    i = this.skipBlanks(i);
    if (this.at(i) === '#') return '\n';
    return /^(?:&&|\|\||\||;|&|\n)/.exec(this.src.slice(i, i + 2))?.[0] ?? '';
  }

  private scanRedirect(i: number, op: string, state: ScanState, command: SimpleCommand): number {
    i = this.skipBlanks(i);
    const target = this.scanWord(i, state, 'normal');
    const redirect: Redirect = { op, target };
    if (/<<-?$/.test(op) && !op.endsWith('<<<')) {
      const raw = this.src.slice(target.start, target.end);
      // bash reads the delimiter as written, svc would splice into it: the two would end the body apart.
      this.recordRange(target.start, target.end, state.backtick ? 'backtick' : 'heredoc');
      const quoted = /['"\\]/.test(raw);
      redirect.heredoc = { quoted };
      const delimiter = raw.replace(/\\(.)/g, '$1').replace(/['"]/g, '');
      if (delimiter !== '') this.heredocs.push({ delimiter, stripTabs: op.endsWith('-'), redirect });
    }
    command.redirects.push(redirect);
    return target.end > i ? target.end : i + 1;
  }

  /** `for`/`select`: `NAME [in WORDS]` (a command of kind 'for') or `(( … ))`. */
  private scanFor(i: number, state: ScanState, command: SimpleCommand): number {
    i = this.skipBlanks(i);
    if (this.src.startsWith('((', i)) return this.scanArithmetic(i + 2, { ...state, within: 'arithmetic' }, '))', 'for');
    command.kind = 'for';
    const name = this.scanWord(i, state, 'normal');
    command.words.push(name);
    i = this.skipBlanks(name.end);
    if (this.src.startsWith('in', i) && /[\s;]/.test(this.at(i + 2))) {
      i += 2;
      for (;;) {
        i = this.skipBlanks(i);
        const c = this.at(i);
        if (c === '' || c === '\n' || c === ';' || c === '&' || c === '|' || c === ')' || c === '#') break;
        const word = this.scanWord(i, state, 'normal');
        command.words.push(word);
        i = word.end > i ? word.end : i + 1;
      }
    }
    command.end = i;
    command.separator = this.separatorAt(i);
    this.outline.commands.push(command);
    return i;
  }

  /** `case WORD in PATTERNS) LIST ;; … esac` from after `case`; returns the offset after `esac`. */
  private scanCase(i: number, state: ScanState): number {
    if (!this.enter()) return this.n;
    i = this.skipBlanks(i);
    i = Math.max(this.scanWord(i, state, 'normal').end, i + 1);
    for (;;) {
      i = this.skipSpace(i, state);
      if (i >= this.n) break;
      if (this.isReserved(i, 'esac')) {
        i += 4;
        break;
      }
      if (this.src.startsWith('in', i) && /[\s;]/.test(this.at(i + 2))) {
        i += 2;
        continue;
      }
      if (this.at(i) === '(') i++;
      for (;;) {
        i = this.skipBlanks(i);
        const pattern = this.scanWord(i, state, 'normal');
        i = this.skipBlanks(pattern.end);
        if (this.at(i) === '|') i++;
        else {
          if (this.at(i) === ')') i++;
          else if (pattern.end === pattern.start) i++;
          break;
        }
      }
      i = this.scanList(i, state, 'case');
      const end = /^(?:;;&|;;|;&)/.exec(this.src.slice(i, i + 3))?.[0];
      if (end) i += end.length;
    }
    this.leave();
    return Math.min(i, this.n);
  }

  /** Blanks, newlines (with their here-documents) and comments. */
  private skipSpace(i: number, state: ScanState): number {
    for (;;) {
      i = this.skipBlanks(i);
      if (this.at(i) === '\n') i = this.newline(i, state);
      else if (this.at(i) === '#') i = this.skipComment(i, state);
      else return i;
    }
  }

  /** The words of `[[ … ]]` from after `[[`; returns the offset after `]]`. */
  private scanCond(i: number, state: ScanState, command: SimpleCommand): number {
    for (;;) {
      i = this.skipSpace(i, state);
      if (i >= this.n) return this.n;
      if (this.src.startsWith(']]', i) && /^(?:[\s;&|()<>]|)$/.test(this.at(i + 2))) return i + 2;
      const word = this.scanWord(i, state, 'cond');
      command.words.push(word);
      i = word.end > i ? word.end : i + 1;
    }
  }

  private scanFunctionName(i: number, state: ScanState): number {
    i = this.skipBlanks(i);
    const name = this.scanWord(i, state, 'normal');
    if (name.literal !== undefined) this.outline.functions.add(name.literal);
    const parens = /^\s*\(\s*\)/.exec(this.src.slice(name.end, name.end + 20))?.[0];
    return parens ? name.end + parens.length : Math.max(name.end, i + 1);
  }
}

/** Start → end of each `$<id>.output` in `text`. */
export function findRefsIn(text: string): Map<number, number> {
  const refs = new Map<number, number>();
  for (const match of text.matchAll(new RegExp(OUTPUT_REF_SOURCE, 'g'))) refs.set(match.index, match.index + match[0].length);
  return refs;
}

export interface ShellScan {
  readonly outline: ShellOutline;
  /** The context of each reference, by its offset; a reference the scan never reached is 'unchecked'. */
  contextAt(offset: number): ShellContext;
}

/** Scans a bash script: its outline and the quoting context of each `$<id>.output` in it. */
export function scanShell(script: string, refs: ReadonlyMap<number, number> = findRefsIn(script)): ShellScan {
  const contexts = new Map<number, ShellContext>();
  const outline = emptyOutline();
  new Scanner(script, refs, contexts, 0, outline, 0).scanScript();
  return { outline, contextAt: (offset) => contexts.get(offset) ?? 'unchecked' };
}

/** Scans `text` (literal code handed to `eval`, `trap`, `bash -c` …) into `outline`, at nesting `depth`. */
export function scanInto(text: string, outline: ShellOutline, depth: number): void {
  new Scanner(text, findRefsIn(text), null, 0, outline, depth).scanScript();
}
