/**
 * The bottom level of the bash scanner: what starts with `$` or a backtick — parameters, `${…}`,
 * `$(…)`, `$((…))`, `$[…]`, `` `…` `` — and the quotes they can sit in. scan-words.ts builds words
 * on it, scanner.ts the command level (lists, commands, here-documents, `case`, `for`, `[[ … ]]`);
 * the three are one recursive scanner split along those seams.
 *
 * While it scans, it records the quoting context of each `$<id>.output` reference (contexts.ts)
 * and fills the outline (outline.ts). It is not a bash parser: where it cannot follow a script it
 * leans towards the unsafe reading, and past MAX_NESTING levels it stops and says so.
 */

import type { ShellContext } from './contexts.js';
import type { ArithmeticKind, Expansion, ShellOutline, ShellWord, Assignment } from './outline.js';

/** Deeper nesting than this is not followed (the JS stack is finite; no real script nests so deep). */
const MAX_NESTING = 100;

/** What encloses the current position, for the context of a reference. */
export interface ScanState {
  /** Inside backticks anywhere up the nesting: the shell re-parses the text, nothing is safe. */
  readonly backtick: boolean;
  /** Inside the body of a here-document: a splice's quotes would be literal text. */
  readonly heredoc: boolean;
  /** Inside ${…}, $((…)) or $'…', up to the nearest command substitution. */
  readonly within?: 'parameter-expansion' | 'arithmetic' | 'ansi-c-quoted';
}

export const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPECIAL_PARAMETERS = '@*#?-$!';

/** Collects the literal text and the expansions of one word. */
export class WordBuilder {
  literal = '';
  exact = true;
  glob = false;
  readonly expansions: Expansion[] = [];
  text(s: string): void {
    this.literal += s;
  }
  expand(expansion: Expansion): void {
    this.expansions.push(expansion);
  }
  build(source: string, start: number, end: number, assignment?: Assignment): ShellWord {
    const literal = this.exact && this.expansions.length === 0 ? this.literal : undefined;
    return { source, start, end, literal, text: this.literal, expansions: this.expansions, glob: this.glob, ...(assignment ? { assignment } : {}) };
  }
}

export abstract class ExpansionScanner {
  protected readonly n: number;
  protected level = 0;
  /** The reference starts in ascending order, for the ones inside a range. */
  private readonly refStarts: number[];

  /**
   * @param src the text scanned
   * @param refs start → end of each `$<id>.output` in `src`
   * @param contexts where the context of each reference is recorded (by offset + `base`); null to record none
   */
  constructor(
    protected readonly src: string,
    protected readonly refs: ReadonlyMap<number, number>,
    protected readonly contexts: Map<number, ShellContext> | null,
    protected readonly base: number,
    protected readonly outline: ShellOutline,
    protected readonly depth: number,
  ) {
    this.n = src.length;
    this.refStarts = [...refs.keys()].sort((x, y) => x - y);
  }

  /** The starts of the references in [from, to). */
  protected refsIn(from: number, to: number): number[] {
    let low = 0;
    let high = this.refStarts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.refStarts[middle] as number) < from) low = middle + 1;
      else high = middle;
    }
    const found: number[] = [];
    for (let k = low; k < this.refStarts.length && (this.refStarts[k] as number) < to; k++) found.push(this.refStarts[k] as number);
    return found;
  }

  /** Scans a command list from `i` up to its terminator; returns the terminator's offset. */
  protected abstract scanList(i: number, state: ScanState, term: 'top' | 'paren' | 'case'): number;
  /** Scans `text` (a backtick body, unescaped) as a script of its own, into the same outline. */
  protected abstract scanNested(text: string): void;

  protected at(i: number): string {
    return this.src[i] ?? '';
  }

  protected record(i: number, context: ShellContext): void {
    if (this.contexts && this.refs.has(i)) this.contexts.set(this.base + i, context);
  }

  /** Records `context` for every reference starting in [from, to). */
  protected recordRange(from: number, to: number, context: ShellContext): void {
    if (!this.contexts) return;
    for (const start of this.refsIn(from, to)) this.contexts.set(this.base + start, context);
  }

  protected contextFor(state: ScanState, quoting: 'word' | 'double-quoted' | 'single-quoted'): ShellContext {
    if (state.backtick) return 'backtick';
    if (state.heredoc) return 'heredoc';
    return state.within ?? quoting;
  }

  /** Enters one more level of nesting; false (and the outline marked) when that is too deep. */
  protected enter(): boolean {
    if (this.level + this.depth >= MAX_NESTING) {
      this.outline.tooDeep = true;
      return false;
    }
    this.level++;
    return true;
  }

  protected leave(): void {
    this.level--;
  }

  protected skipBlanks(i: number): number {
    for (;;) {
      const c = this.at(i);
      if (c === ' ' || c === '\t') i++;
      else if (c === '\\' && this.at(i + 1) === '\n') i += 2;
      else return i;
    }
  }

  protected scanSingle(i: number, state: ScanState, b: WordBuilder): number {
    const close = this.src.indexOf("'", i);
    const end = close === -1 ? this.n : close;
    const context = this.contextFor(state, 'single-quoted');
    // A reference in '…' is still expanded (the quotes are closed around it): the word carries a value.
    for (const start of this.refsIn(i, end)) {
      this.record(start, context);
      b.expand({ kind: 'splice' });
    }
    b.text(this.src.slice(i, end));
    return end + 1;
  }

  /** "…" from just after the opening quote; returns the offset after the closing one. */
  protected scanDouble(i: number, state: ScanState, b: WordBuilder): number {
    if (!this.enter()) return this.n;
    while (i < this.n) {
      const c = this.at(i);
      if (c === '"') {
        this.leave();
        return i + 1;
      }
      if (c === '\\') {
        const next = this.at(i + 1);
        if ('$`"\\\n'.includes(next)) {
          this.record(i + 1, 'escaped');
          if (next !== '\n') b.text(next);
          i += 2;
        } else {
          b.text('\\');
          i++;
        }
      } else if (c === '$') i = this.scanDollar(i, state, b, 'double-quoted');
      else if (c === '`') i = this.scanBacktick(i, state, b);
      else {
        b.text(c);
        i++;
      }
    }
    this.leave();
    return this.n;
  }

  /** An expansion starting with the `$` at `i`; returns the offset after it. */
  protected scanDollar(i: number, state: ScanState, b: WordBuilder, quoting: 'word' | 'double-quoted'): number {
    const refEnd = this.refs.get(i);
    if (refEnd !== undefined) {
      this.record(i, this.contextFor(state, quoting));
      b.expand({ kind: 'splice' });
      return refEnd;
    }
    const next = this.at(i + 1);
    const inner: ScanState = { ...state, within: 'arithmetic' };
    if (next === '(' && this.at(i + 2) === '(') {
      b.expand({ kind: 'arithmetic' });
      return this.scanArithmetic(i + 3, inner, '))', 'arithmetic-expansion');
    }
    if (next === '[') {
      b.expand({ kind: 'arithmetic' });
      return this.scanArithmetic(i + 2, inner, ']', 'old-arithmetic');
    }
    if (next === '(') {
      b.expand({ kind: 'command' });
      if (!this.enter()) return this.n;
      const close = this.scanList(i + 2, { backtick: state.backtick, heredoc: state.heredoc }, 'paren');
      this.leave();
      return this.at(close) === ')' ? close + 1 : close;
    }
    if (next === '{') return this.scanBrace(i + 2, state, b, quoting === 'double-quoted');
    const name = NAME.exec(this.src.slice(i + 1, i + 257))?.[0];
    if (name) {
      b.expand({ kind: 'parameter', name, form: 'plain' });
      return i + 1 + name.length;
    }
    if (/[0-9]/.test(next) || (next !== '' && SPECIAL_PARAMETERS.includes(next))) {
      b.expand({ kind: 'parameter', name: next, form: 'plain' });
      return i + 2;
    }
    b.text('$');
    return i + 1;
  }

  /**
   * An arithmetic region from `i` up to `closer` (`))` or `]`) at depth 0, recorded in the
   * outline; returns the offset after the closer.
   */
  protected scanArithmetic(i: number, state: ScanState, closer: '))' | ']', kind: ArithmeticKind): number {
    if (!this.enter()) return this.n;
    const start = i;
    const [open, close] = closer === ']' ? ['[', ']'] : ['(', ')'];
    let depth = 0;
    let end = this.n;
    const scratch = new WordBuilder();
    while (i < this.n) {
      const c = this.at(i);
      if (c === open) depth++;
      else if (c === close) {
        if (depth > 0) depth--;
        else {
          end = i;
          i += closer === '))' && this.at(i + 1) === ')' ? 2 : 1;
          break;
        }
      } else if (c === '\\') {
        this.record(i + 1, 'escaped');
        i += 2;
        continue;
      } else if (c === '$') {
        i = this.scanDollar(i, state, scratch, 'word');
        continue;
      } else if (c === '`') {
        i = this.scanBacktick(i, state, scratch);
        continue;
      } else if (c === '"') {
        i = this.scanDouble(i + 1, state, scratch);
        continue;
      }
      i++;
    }
    this.outline.arithmetic.push({ kind, source: this.src, start, end });
    this.leave();
    return Math.min(i, this.n);
  }

  /** `${…}` from just after `${`; returns the offset after the closing brace. */
  private scanBrace(i: number, state: ScanState, b: WordBuilder, inDouble: boolean): number {
    if (!this.enter()) return this.n;
    const start = i - 2;
    const inner: ScanState = { ...state, within: 'parameter-expansion' };
    let form: NonNullable<Expansion['form']> = 'plain';
    const nameChar = (c: string) => /[A-Za-z0-9_]/.test(c) || SPECIAL_PARAMETERS.includes(c);
    if (this.at(i) === '#' && this.at(i + 1) !== '}' && nameChar(this.at(i + 1))) {
      form = 'length';
      i++;
    } else if (this.at(i) === '!' && this.at(i + 1) !== '}' && nameChar(this.at(i + 1))) {
      form = 'indirect';
      i++;
    }
    let name = NAME.exec(this.src.slice(i, i + 256))?.[0] ?? /^[0-9]+/.exec(this.src.slice(i, i + 32))?.[0] ?? '';
    if (name === '' && SPECIAL_PARAMETERS.includes(this.at(i)) && this.at(i) !== '') name = this.at(i);
    i += name.length;
    if (this.at(i) === '[') {
      if ((this.at(i + 1) === '@' || this.at(i + 1) === '*') && this.at(i + 2) === ']') {
        if (form === 'indirect') form = 'keys';
        i += 3;
      } else i = this.scanArithmetic(i + 1, inner, ']', 'subscript');
    }
    if (form === 'indirect' && (this.at(i) === '*' || this.at(i) === '@') && this.at(i + 1) === '}') {
      form = 'keys';
      i++;
    }
    let op: string | undefined;
    const c = this.at(i);
    if (c === '}') i++;
    else if (c === ':' && !'-=?+'.includes(this.at(i + 1))) {
      op = ':';
      i = this.scanSubstring(i + 1, inner);
    } else {
      op = /^(?::[-=?+]|[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?|@[A-Za-z])/.exec(this.src.slice(i, i + 2))?.[0] ?? c;
      i = this.scanBraceWord(i + op.length, inner, inDouble);
    }
    const use = { name, form: op !== undefined && form === 'plain' ? ('operator' as const) : form, ...(op !== undefined ? { op } : {}) };
    this.outline.parameters.push({ ...use, source: this.src, start, end: i });
    b.expand({ kind: 'parameter', ...use });
    this.leave();
    return i;
  }

  /** `${v:offset:length}`: both parts are arithmetic; returns the offset after `}`. */
  private scanSubstring(i: number, state: ScanState): number {
    for (;;) {
      const start = i;
      let depth = 0;
      const scratch = new WordBuilder();
      while (i < this.n) {
        const c = this.at(i);
        if (depth === 0 && (c === ':' || c === '}')) break;
        if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
        if (c === '$') i = this.scanDollar(i, state, scratch, 'word');
        else if (c === '`') i = this.scanBacktick(i, state, scratch);
        else i += c === '\\' ? 2 : 1;
      }
      this.outline.arithmetic.push({ kind: 'substring', source: this.src, start, end: Math.min(i, this.n) });
      if (this.at(i) !== ':') return Math.min(i + 1, this.n);
      i++;
    }
  }

  /** The word part of `${v op word}`, up to the closing brace; returns the offset after it. */
  private scanBraceWord(i: number, state: ScanState, inDouble: boolean): number {
    const scratch = new WordBuilder();
    while (i < this.n) {
      const c = this.at(i);
      if (c === '}') return i + 1;
      if (c === '\\') {
        this.record(i + 1, 'escaped');
        i += 2;
      } else if (c === "'" && !inDouble) i = this.scanSingle(i + 1, state, scratch);
      else if (c === '"') i = this.scanDouble(i + 1, state, scratch);
      else if (c === '$') i = this.scanDollar(i, state, scratch, 'word');
      else if (c === '`') i = this.scanBacktick(i, state, scratch);
      else i++;
    }
    return this.n;
  }

  /** `` `…` ``: every reference inside is unsafe; the unescaped body is scanned as a script of its own. */
  protected scanBacktick(i: number, state: ScanState, b: WordBuilder): number {
    let j = i + 1;
    while (j < this.n && this.at(j) !== '`') j += this.at(j) === '\\' ? 2 : 1;
    const end = Math.min(j, this.n);
    this.recordRange(i + 1, end, 'backtick');
    b.expand({ kind: 'backtick' });
    if (this.enter()) {
      this.scanNested(this.src.slice(i + 1, end).replace(/\\([$`\\])/g, '$1'));
      this.leave();
    }
    return Math.min(end + 1, this.n);
  }
}
