/**
 * The `when` condition of a node (docs/contract.md, "Workflow files"): a tiny expression language, parsed here and
 * evaluated by walking the tree — never `eval`, never a shell — because the operands are outputs
 * of earlier nodes, i.e. text an agent or a webhook sender may control.
 *
 *   expr    := or
 *   or      := and ( '||' and )*
 *   and     := unary ( '&&' unary )*
 *   unary   := '!' unary | compare
 *   compare := primary ( ( '==' | '!=' ) primary )?      — comparisons do not chain
 *   primary := '(' expr ')' | $<id>.output | 'text' | "text" | number | true | false
 *
 * Values are strings: an output is its text (surrounding whitespace trimmed, so a trailing newline
 * from an agent does not defeat `== 'yes'`), a number literal is its canonical spelling (`3.0` is
 * "3"), a boolean is "true"/"false", and a comparison yields "true"/"false". A value used as a
 * condition is true when it is not "", "false" or "0".
 */

export type WhenExpr =
  | { readonly kind: 'ref'; readonly node: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'not'; readonly operand: WhenExpr }
  | { readonly kind: 'and' | 'or' | 'equals' | 'notEquals'; readonly left: WhenExpr; readonly right: WhenExpr };

export type WhenParseResult = { readonly ok: true; readonly ast: WhenExpr; readonly refs: string[] } | { readonly ok: false; readonly error: string };

// Deep enough for any condition a person writes; shallow enough that neither the parser nor the
// evaluator (both recursive) can be driven into a stack overflow by `((((…`.
const MAX_DEPTH = 64;

type Token =
  | { type: 'ref'; node: string; col: number }
  | { type: 'string'; value: string; col: number }
  | { type: 'number'; value: number; col: number }
  | { type: 'boolean'; value: boolean; col: number }
  | { type: 'op'; op: '==' | '!=' | '&&' | '||' | '!' | '(' | ')'; col: number }
  | { type: 'end'; col: number };

/** A parse failure; `col` is 1-based within the expression. */
class WhenSyntaxError extends Error {
  constructor(message: string, col: number, hint?: string) {
    super(`${message} at column ${col}${hint === undefined ? '' : ` (${hint})`}`);
  }
}

const ID_START = /[A-Za-z_]/;
const ID_CHAR = /[A-Za-z0-9_-]/;
const WORD_CHAR = /[A-Za-z0-9_]/;

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    const col = i + 1;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '&&' || two === '||') {
      tokens.push({ type: 'op', op: two, col });
      i += 2;
      continue;
    }
    if (ch === '!' || ch === '(' || ch === ')') {
      tokens.push({ type: 'op', op: ch, col });
      i++;
      continue;
    }
    if (ch === '=') throw new WhenSyntaxError("unexpected '='", col, "use '==' to compare");
    if (ch === '&') throw new WhenSyntaxError("unexpected '&'", col, "use '&&'");
    if (ch === '|') throw new WhenSyntaxError("unexpected '|'", col, "use '||'");
    if (ch === '$') {
      let j = i + 1;
      if (!ID_START.test(src[j] ?? '')) throw new WhenSyntaxError("expected a node id after '$'", col);
      while (ID_CHAR.test(src[j] ?? '')) j++;
      const node = src.slice(i + 1, j);
      if (src.slice(j, j + 7) !== '.output' || WORD_CHAR.test(src[j + 7] ?? '')) {
        throw new WhenSyntaxError(`expected '.output' after '$${node}'`, col, `write $${node}.output`);
      }
      tokens.push({ type: 'ref', node, col });
      i = j + 7;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      let value = '';
      for (;;) {
        const c = src[j];
        if (c === undefined) throw new WhenSyntaxError('unterminated string', col);
        if (c === ch) break;
        if (c === '\\' && j + 1 < src.length) {
          value += src[j + 1];
          j += 2;
          continue;
        }
        value += c;
        j++;
      }
      tokens.push({ type: 'string', value, col });
      i = j + 1;
      continue;
    }
    const number = /^-?(?:\d+(?:\.\d+)?|\.\d+)/.exec(src.slice(i));
    if (number !== null) {
      const end = i + number[0].length;
      if (WORD_CHAR.test(src[end] ?? '')) throw new WhenSyntaxError(`unexpected '${src[end]}' after a number`, end + 1);
      tokens.push({ type: 'number', value: Number(number[0]), col });
      i = end;
      continue;
    }
    if (WORD_CHAR.test(ch)) {
      let j = i;
      while (WORD_CHAR.test(src[j] ?? '')) j++;
      const word = src.slice(i, j);
      if (word === 'true' || word === 'false') {
        tokens.push({ type: 'boolean', value: word === 'true', col });
        i = j;
        continue;
      }
      const hint = src.slice(j, j + 7) === '.output' ? `write $${word}.output` : `quote text: '${word}'`;
      throw new WhenSyntaxError(`unexpected '${word}'`, col, hint);
    }
    throw new WhenSyntaxError(`unexpected '${ch}'`, col);
  }
  tokens.push({ type: 'end', col: src.length + 1 });
  return tokens;
}

function describe(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'end of expression';
    case 'op':
      return `'${token.op}'`;
    case 'ref':
      return `'$${token.node}.output'`;
    case 'string':
      return 'a string';
    default:
      return `'${String(token.value)}'`;
  }
}

/** Recursive descent over the token list; `depth` bounds nesting (see MAX_DEPTH). */
class Parser {
  private pos = 0;
  readonly refs = new Set<string>();

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token; // the list always ends with an 'end' token
  }

  private isOp(op: string): boolean {
    const t = this.peek();
    return t.type === 'op' && t.op === op;
  }

  parseAll(): WhenExpr {
    const expr = this.parseOr(0);
    const rest = this.peek();
    if (rest.type !== 'end') {
      if (rest.type === 'op' && rest.op === ')') throw new WhenSyntaxError("unmatched ')'", rest.col);
      throw new WhenSyntaxError(`unexpected ${describe(rest)}`, rest.col, 'join conditions with && or ||');
    }
    return expr;
  }

  private parseOr(depth: number): WhenExpr {
    let left = this.parseAnd(depth);
    while (this.isOp('||')) {
      this.pos++;
      left = { kind: 'or', left, right: this.parseAnd(depth) };
    }
    return left;
  }

  private parseAnd(depth: number): WhenExpr {
    let left = this.parseUnary(depth);
    while (this.isOp('&&')) {
      this.pos++;
      left = { kind: 'and', left, right: this.parseUnary(depth) };
    }
    return left;
  }

  private parseUnary(depth: number): WhenExpr {
    if (depth > MAX_DEPTH) throw new WhenSyntaxError('expression nested too deeply', this.peek().col);
    if (this.isOp('!')) {
      this.pos++;
      return { kind: 'not', operand: this.parseUnary(depth + 1) };
    }
    return this.parseCompare(depth);
  }

  private parseCompare(depth: number): WhenExpr {
    const left = this.parsePrimary(depth);
    const t = this.peek();
    if (t.type !== 'op' || (t.op !== '==' && t.op !== '!=')) return left;
    this.pos++;
    const right = this.parsePrimary(depth);
    const next = this.peek();
    if (next.type === 'op' && (next.op === '==' || next.op === '!=')) {
      throw new WhenSyntaxError(`unexpected '${next.op}'`, next.col, 'comparisons do not chain; add parentheses');
    }
    return { kind: t.op === '==' ? 'equals' : 'notEquals', left, right };
  }

  private parsePrimary(depth: number): WhenExpr {
    const t = this.peek();
    switch (t.type) {
      case 'ref':
        this.pos++;
        this.refs.add(t.node);
        return { kind: 'ref', node: t.node };
      case 'string':
      case 'number':
      case 'boolean':
        this.pos++;
        return { kind: t.type, value: t.value } as WhenExpr;
      case 'op':
        if (t.op === '(') {
          this.pos++;
          const inner = this.parseOr(depth + 1);
          if (!this.isOp(')')) throw new WhenSyntaxError(`expected ')' but found ${describe(this.peek())}`, this.peek().col);
          this.pos++;
          return inner;
        }
        if (t.op === '!') return this.parseUnary(depth + 1);
        break;
      default:
        break;
    }
    throw new WhenSyntaxError(`expected a value but found ${describe(t)}`, t.col);
  }
}

/** Parses a `when` expression; `refs` lists the node ids it reads, in order of first appearance. */
export function parseWhen(src: string): WhenParseResult {
  if (src.trim() === '') return { ok: false, error: 'empty expression' };
  try {
    const parser = new Parser(tokenize(src));
    const ast = parser.parseAll();
    return { ok: true, ast, refs: [...parser.refs] };
  } catch (error) {
    if (error instanceof WhenSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

/** The string value of an expression (see the module comment for the rules). */
function valueOf(expr: WhenExpr, outputs: Readonly<Record<string, string>>): string {
  switch (expr.kind) {
    case 'ref':
      return (outputs[expr.node] ?? '').trim();
    case 'string':
      return expr.value;
    case 'number':
    case 'boolean':
      return String(expr.value);
    default:
      return String(evaluateWhen(expr, outputs));
  }
}

function truthy(value: string): boolean {
  return value !== '' && value !== 'false' && value !== '0';
}

/**
 * Evaluates a parsed condition against the outputs of finished nodes. A node that produced no
 * output (skipped, say) reads as "".
 */
export function evaluateWhen(ast: WhenExpr, outputs: Readonly<Record<string, string>>): boolean {
  switch (ast.kind) {
    case 'and':
      return evaluateWhen(ast.left, outputs) && evaluateWhen(ast.right, outputs);
    case 'or':
      return evaluateWhen(ast.left, outputs) || evaluateWhen(ast.right, outputs);
    case 'not':
      return !evaluateWhen(ast.operand, outputs);
    case 'equals':
      return valueOf(ast.left, outputs) === valueOf(ast.right, outputs);
    case 'notEquals':
      return valueOf(ast.left, outputs) !== valueOf(ast.right, outputs);
    default:
      return truthy(valueOf(ast, outputs));
  }
}
