/**
 * The word level of the bash scanner: one word with its quotes, escapes and expansions, and
 * assignment words (`NAME=…`, `NAME[…]=…`, `NAME=(…)`). scan-expansions.ts scans what starts
 * with `$` or a backtick; scanner.ts builds the command level on top.
 */

import type { Assignment, ShellWord } from './outline.js';
import { ExpansionScanner, NAME, WordBuilder, type ScanState } from './scan-expansions.js';

export type WordMode = 'normal' | 'assignable' | 'cond';

/** Characters that end an unquoted word; inside `[[ … ]]` only blanks do (`<`, `(`, `|` are part of operands and regexes). */
const WORD_END: Record<WordMode, string> = { normal: ' \t\n;&|()<>', assignable: ' \t\n;&|()<>', cond: ' \t\n' };
const EXTGLOB_LEADS = '@!+*?';

export abstract class WordScanner extends ExpansionScanner {
  /** One word from `i`; its `end` is where the scan stopped. */
  protected scanWord(i: number, state: ScanState, mode: WordMode): ShellWord {
    const start = i;
    if (mode === 'assignable') {
      const assignment = this.scanAssignment(i, state);
      if (assignment) {
        const whole = new WordBuilder();
        whole.text(this.src.slice(start, assignment.valueStart));
        const value = assignment.assignment.value;
        if (value) {
          if (value.literal === undefined) whole.exact = false;
          else whole.text(value.literal);
          for (const expansion of value.expansions) whole.expand(expansion);
        } else whole.exact = false;
        return whole.build(this.src, start, assignment.end, assignment.assignment);
      }
    }
    const b = new WordBuilder();
    const end = this.scanWordParts(i, state, WORD_END[mode], b);
    return b.build(this.src, start, end);
  }

  /** The parts of a word from `i` until an unquoted character of `stop`; returns where it stopped. */
  protected scanWordParts(i: number, state: ScanState, stop: string, b: WordBuilder): number {
    while (i < this.n) {
      const c = this.at(i);
      if (stop.includes(c)) {
        if (c === '(' && i > 0 && EXTGLOB_LEADS.includes(this.at(i - 1))) {
          i = this.skipParens(i, b);
          continue;
        }
        break;
      }
      if (c === '\\') {
        if (this.at(i + 1) !== '\n') {
          this.record(i + 1, 'escaped');
          b.text(this.at(i + 1));
        }
        i += 2;
      } else if (c === "'") i = this.scanSingle(i + 1, state, b);
      else if (c === '$' && this.at(i + 1) === "'") i = this.scanAnsi(i + 2, state, b);
      else if (c === '$' && this.at(i + 1) === '"') i = this.scanDouble(i + 2, state, b);
      else if (c === '"') i = this.scanDouble(i + 1, state, b);
      else if (c === '$') i = this.scanDollar(i, state, b, 'word');
      else if (c === '`') i = this.scanBacktick(i, state, b);
      else {
        if (c === '*' || c === '?' || c === '[') b.glob = true;
        b.text(c);
        i++;
      }
    }
    return Math.min(i, this.n);
  }

  /** An extglob group `@(…)` as literal text (the word is a pattern). */
  private skipParens(i: number, b: WordBuilder): number {
    let depth = 0;
    b.glob = true;
    for (; i < this.n; i++) {
      const c = this.at(i);
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return i + 1;
    }
    return this.n;
  }

  private scanAnsi(i: number, state: ScanState, b: WordBuilder): number {
    let j = i;
    while (j < this.n && this.at(j) !== "'") j += this.at(j) === '\\' ? 2 : 1;
    const end = Math.min(j, this.n);
    this.recordRange(i, end, state.backtick ? 'backtick' : 'ansi-c-quoted');
    for (let k = this.refsIn(i, end).length; k > 0; k--) b.expand({ kind: 'splice' });
    const body = this.src.slice(i, end);
    // Escapes decode to any character: such a word's text is not known here.
    if (body.includes('\\')) b.exact = false;
    b.text(body);
    return end + 1;
  }

  /**
   * `NAME=…`, `NAME+=…`, `NAME[…]=…` at `i`, or undefined when the word is not an assignment.
   * The value is scanned as a word; `NAME=(…)` as the list of its elements.
   */
  private scanAssignment(i: number, state: ScanState): { assignment: Assignment; valueStart: number; end: number } | undefined {
    const name = NAME.exec(this.src.slice(i, i + 256))?.[0];
    if (!name) return undefined;
    let j = i + name.length;
    let subscriptEnd = -1;
    if (this.at(j) === '[') {
      subscriptEnd = this.matchingBracket(j);
      if (subscriptEnd === -1) return undefined;
      j = subscriptEnd + 1;
    }
    const append = this.at(j) === '+';
    if (append) j++;
    if (this.at(j) !== '=') return undefined;
    let subscript: Assignment['subscript'];
    if (subscriptEnd !== -1) {
      const subStart = i + name.length + 1;
      this.scanArithmetic(subStart, { ...state, within: 'arithmetic' }, ']', 'subscript');
      subscript = { source: this.src, start: subStart, end: subscriptEnd };
    }
    const valueStart = j + 1;
    const base = { name, append, ...(subscript ? { subscript } : {}) };
    if (this.at(valueStart) === '(') {
      const elements: ShellWord[] = [];
      let k = valueStart + 1;
      for (;;) {
        while (/[ \t\n]/.test(this.at(k))) k++;
        if (k >= this.n) break;
        if (this.at(k) === ')') {
          k++;
          break;
        }
        if (this.at(k) === '[') {
          // `[index]=value`: the index is arithmetic for an indexed array.
          const close = this.matchingBracket(k);
          if (close !== -1 && this.at(close + 1) === '=') k = this.scanArithmetic(k + 1, { ...state, within: 'arithmetic' }, ']', 'subscript') + 1;
        }
        const element = this.scanWord(k, state, 'normal');
        elements.push(element);
        k = element.end > k ? element.end : k + 1;
      }
      return { assignment: { ...base, elements }, valueStart, end: k };
    }
    const value = this.scanWord(valueStart, state, 'normal');
    return { assignment: { ...base, value }, valueStart, end: value.end };
  }

  /** The offset of the `]` matching the `[` at `i` (no quotes across it), or -1. */
  private matchingBracket(i: number): number {
    let depth = 0;
    // An index longer than this is not an assignment anyone writes; the bound keeps `a[a[a[…` linear.
    for (let k = i; k < Math.min(this.n, i + 4096); k++) {
      const c = this.at(k);
      if (c === '\\') k++;
      else if (c === '[') depth++;
      else if (c === ']' && --depth === 0) return k;
      else if (c === '\n' || c === ' ' || c === '\t') return -1;
    }
    return -1;
  }
}
