/**
 * Where in a bash script's quoting does a given offset sit?
 *
 * `$<id>.output` in a bash node is replaced by a single-quoted shell word (docs/decisions.md, Workflow files). That word
 * is inert only where the shell reads it as shell syntax. Spliced as-is into `"…"`, a here-document
 * or `${…}`, the quotes become literal characters and a `$(…)` inside the output would run. So the
 * renderer needs the quoting context of each reference: unquoted words take the word as-is; inside
 * "…" or '…' it closes the quotes, inserts the word and reopens them; comments are left alone; the
 * contexts where no splice is safe are refused by validation.
 *
 * This is a small lexer, not a bash parser. It tracks quotes, `$(…)`, `${…}`, `$((…))`, backticks,
 * comments, `case … esac` patterns and here-documents — enough to tell these contexts apart in
 * scripts people write. Where it cannot be sure, it leans towards an unsafe context, so a script is
 * refused rather than spliced into the wrong quoting.
 */

export type ShellContext =
  | 'word' // plain shell syntax: a quoted word is safe as-is
  | 'double-quoted'
  | 'single-quoted'
  | 'comment'
  | 'escaped' // after a backslash: the shell sees a literal '$'
  | 'heredoc'
  | 'backtick'
  | 'parameter-expansion'
  | 'arithmetic'
  | 'ansi-c-quoted';

/** Contexts in which no textual splice of a value is safe; validation refuses references there. */
export const UNSAFE_SHELL_CONTEXTS: ReadonlySet<ShellContext> = new Set(['heredoc', 'backtick', 'parameter-expansion', 'arithmetic', 'ansi-c-quoted']);

/** Why a reference cannot be spliced in `context`, and what to write instead (for messages). */
export function unsafeContextAdvice(context: ShellContext, ref: string): string {
  switch (context) {
    case 'heredoc':
      return `${ref} cannot be substituted safely inside a here-document; pipe it instead: printf '%s\\n' ${ref} | …`;
    case 'backtick':
      return `${ref} cannot be substituted safely inside backticks; use $(…) instead`;
    case 'parameter-expansion':
      return `${ref} cannot be substituted safely inside \${…}; assign it to a variable first: v=${ref}`;
    case 'arithmetic':
      return `${ref} cannot be substituted safely inside $((…)); assign it to a variable first: v=${ref}`;
    case 'ansi-c-quoted':
      return `${ref} cannot be substituted safely inside $'…'; write it outside the quotes`;
    default:
      return `${ref} is substituted as a single-quoted word`;
  }
}

type Frame =
  | { kind: 'command'; closesWithParen: boolean; parens: number; cases: number }
  | { kind: 'double' }
  | { kind: 'single' }
  | { kind: 'ansi' }
  | { kind: 'backtick' }
  | { kind: 'brace'; inDouble: boolean }
  | { kind: 'arith'; parens: number };

const WORD_BOUNDARY_BEFORE = /[\s;&|()<>]/;
const WORD_BOUNDARY_AFTER = /[\s;&|()<>]/;
const DELIMITER_END = /[\s;&|()<>]/;

/**
 * The shell context at each offset (ascending) of `script`. Offsets are expected to point at the
 * `$` of a reference.
 */
export function shellContextsAt(script: string, offsets: readonly number[]): ShellContext[] {
  const result: ShellContext[] = new Array<ShellContext>(offsets.length).fill('escaped');
  let next = 0; // index into offsets
  const settle = (upTo: number, context: ShellContext): void => {
    while (next < offsets.length && (offsets[next] as number) < upTo) result[next++] = context;
  };

  const stack: Frame[] = [{ kind: 'command', closesWithParen: false, parens: 0, cases: 0 }];
  const heredocs: { delimiter: string; stripTabs: boolean }[] = [];
  const at = (i: number): string => script[i] ?? '';
  const isWordStart = (i: number): boolean => i === 0 || WORD_BOUNDARY_BEFORE.test(at(i - 1));
  const isKeyword = (i: number, word: string): boolean =>
    isWordStart(i) && script.startsWith(word, i) && (i + word.length >= script.length || WORD_BOUNDARY_AFTER.test(at(i + word.length)));

  /** Pushes the frame opened by an expansion at `i` and returns the index after its opener, or -1. */
  const openExpansion = (i: number, inDouble: boolean): number => {
    if (at(i) === '`') {
      stack.push({ kind: 'backtick' });
      return i + 1;
    }
    if (at(i) !== '$') return -1;
    const second = at(i + 1);
    if (second === '(' && at(i + 2) === '(') {
      stack.push({ kind: 'arith', parens: 0 });
      return i + 3;
    }
    if (second === '(') {
      stack.push({ kind: 'command', closesWithParen: true, parens: 0, cases: 0 });
      return i + 2;
    }
    if (second === '{') {
      stack.push({ kind: 'brace', inDouble });
      return i + 2;
    }
    return -1;
  };

  /** Reads the here-document delimiter word after `<<`/`<<-` at `i`; returns the index after it. */
  const readHeredocOperator = (i: number): number => {
    let j = i + 2;
    const stripTabs = at(j) === '-';
    if (stripTabs) j++;
    while (at(j) === ' ' || at(j) === '\t') j++;
    let delimiter = '';
    while (j < script.length && !DELIMITER_END.test(at(j))) {
      const c = at(j);
      if (c === "'" || c === '"') {
        const close = script.indexOf(c, j + 1);
        const end = close === -1 ? script.length : close;
        delimiter += script.slice(j + 1, end);
        j = end + 1;
      } else if (c === '\\') {
        delimiter += at(j + 1);
        j += 2;
      } else {
        delimiter += c;
        j++;
      }
    }
    if (delimiter !== '') heredocs.push({ delimiter, stripTabs });
    return j;
  };

  /** Skips the bodies of pending here-documents, which start at `start`; returns where they end. */
  const skipHeredocBodies = (start: number): number => {
    let p = start;
    for (const { delimiter, stripTabs } of heredocs.splice(0)) {
      while (p < script.length) {
        const newline = script.indexOf('\n', p);
        const lineEnd = newline === -1 ? script.length : newline;
        const line = script.slice(p, lineEnd);
        p = lineEnd + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
      }
    }
    return Math.min(p, script.length);
  };

  const classify = (): ShellContext => {
    if (stack.some((frame) => frame.kind === 'backtick')) return 'backtick';
    // Inside ${…}, $((…)) or $'…' — up to the nearest enclosing command context — nothing is safe.
    for (let k = stack.length - 1; k >= 0; k--) {
      const frame = stack[k] as Frame;
      if (frame.kind === 'command') break;
      if (frame.kind === 'brace') return 'parameter-expansion';
      if (frame.kind === 'arith') return 'arithmetic';
      if (frame.kind === 'ansi') return 'ansi-c-quoted';
    }
    const top = stack[stack.length - 1] as Frame;
    return top.kind === 'double' ? 'double-quoted' : top.kind === 'single' ? 'single-quoted' : 'word';
  };

  let i = 0;
  while (i < script.length) {
    settle(i, 'escaped'); // offsets jumped over (the character after a backslash)
    if (offsets[next] === i) result[next++] = classify();
    const frame = stack[stack.length - 1] as Frame;
    const ch = at(i);

    if (frame.kind === 'single') {
      if (ch === "'") stack.pop();
      i++;
      continue;
    }
    if (ch === '\\') {
      i += 2; // an escaped character is literal in every remaining context
      continue;
    }
    if (frame.kind === 'ansi' || frame.kind === 'backtick') {
      if ((frame.kind === 'ansi' && ch === "'") || (frame.kind === 'backtick' && ch === '`')) stack.pop();
      i++;
      continue;
    }
    if (frame.kind === 'double') {
      if (ch === '"') {
        stack.pop();
        i++;
        continue;
      }
      const after = openExpansion(i, true);
      i = after === -1 ? i + 1 : after;
      continue;
    }
    if (frame.kind === 'brace') {
      if (ch === '}') stack.pop();
      else if (ch === '"') stack.push({ kind: 'double' });
      else if (ch === "'" && !frame.inDouble)
        stack.push({ kind: 'single' }); // literal inside "${…}"
      else {
        const after = openExpansion(i, false);
        if (after !== -1) {
          i = after;
          continue;
        }
      }
      i++;
      continue;
    }
    if (frame.kind === 'arith') {
      if (ch === '(') frame.parens++;
      else if (ch === ')') {
        if (frame.parens > 0) frame.parens--;
        else {
          stack.pop();
          i += at(i + 1) === ')' ? 2 : 1;
          continue;
        }
      } else {
        const after = openExpansion(i, false);
        if (after !== -1) {
          i = after;
          continue;
        }
      }
      i++;
      continue;
    }

    // frame.kind === 'command'
    if (ch === "'") {
      stack.push({ kind: 'single' });
      i++;
    } else if (ch === '"') {
      stack.push({ kind: 'double' });
      i++;
    } else if (ch === '$' && at(i + 1) === "'") {
      stack.push({ kind: 'ansi' });
      i += 2;
    } else if (ch === '$' && at(i + 1) === '"') {
      stack.push({ kind: 'double' }); // $"…" (locale translation) quotes like "…"
      i += 2;
    } else if (ch === '#' && isWordStart(i)) {
      const newline = script.indexOf('\n', i);
      const end = newline === -1 ? script.length : newline;
      settle(end, 'comment');
      i = end;
    } else if (ch === '<' && at(i + 1) === '<' && at(i + 2) !== '<' && at(i - 1) !== '<') {
      i = readHeredocOperator(i);
    } else if (ch === '\n' && heredocs.length > 0) {
      const end = skipHeredocBodies(i + 1);
      settle(end, 'heredoc');
      i = end;
    } else if (ch === '(' && frame.closesWithParen) {
      frame.parens++;
      i++;
    } else if (ch === ')' && frame.closesWithParen) {
      if (frame.parens > 0) frame.parens--;
      else if (frame.cases === 0) stack.pop(); // otherwise the ')' ends a case pattern
      i++;
    } else if (isKeyword(i, 'case')) {
      frame.cases++;
      i += 4;
    } else if (isKeyword(i, 'esac')) {
      frame.cases = Math.max(0, frame.cases - 1);
      i += 4;
    } else {
      const after = openExpansion(i, false);
      i = after === -1 ? i + 1 : after;
    }
  }
  settle(Number.POSITIVE_INFINITY, 'escaped');
  return result;
}
