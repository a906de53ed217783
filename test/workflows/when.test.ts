import { describe, expect, it } from 'vitest';
import { evaluateWhen, parseWhen } from '../../src/workflows/when.js';

function evaluate(src: string, outputs: Record<string, string>): boolean {
  const parsed = parseWhen(src);
  if (!parsed.ok) throw new Error(parsed.error);
  return evaluateWhen(parsed.ast, outputs);
}

describe('parseWhen', () => {
  it('returns the AST and the referenced node ids in order of first use', () => {
    const parsed = parseWhen('$test.output != \'skip\' && ($lint.output == "ok" || !$test.output)');
    expect(parsed).toEqual({
      ok: true,
      refs: ['test', 'lint'],
      ast: {
        kind: 'and',
        left: { kind: 'notEquals', left: { kind: 'ref', node: 'test' }, right: { kind: 'string', value: 'skip' } },
        right: {
          kind: 'or',
          left: { kind: 'equals', left: { kind: 'ref', node: 'lint' }, right: { kind: 'string', value: 'ok' } },
          right: { kind: 'not', operand: { kind: 'ref', node: 'test' } },
        },
      },
    });
  });

  it('accepts ids with dashes and underscores, numbers, booleans and escaped quotes', () => {
    expect(parseWhen("$my-node_2.output == 'it\\'s' || $a.output == -1.5 || false").ok).toBe(true);
  });

  it.each([
    ['', 'empty expression'],
    ['   ', 'empty expression'],
    ["$test.output = 'skip'", "unexpected '=' at column 14 (use '==' to compare)"],
    ['$a.output & $b.output', "unexpected '&' at column 11 (use '&&')"],
    ['$a.output | $b.output', "unexpected '|' at column 11 (use '||')"],
    ["$test == 'x'", "expected '.output' after '$test' at column 1 (write $test.output)"],
    ["$test.outputs == 'x'", "expected '.output' after '$test' at column 1 (write $test.output)"],
    ['$ == 1', "expected a node id after '$' at column 1"],
    ["test.output == 'x'", "unexpected 'test' at column 1 (write $test.output)"],
    ['$a.output == skip', "unexpected 'skip' at column 14 (quote text: 'skip')"],
    ["$a.output == 'skip", 'unterminated string at column 14'],
    ['($a.output == 1', "expected ')' but found end of expression at column 16"],
    ['$a.output == 1)', "unmatched ')' at column 15"],
    ['$a.output == ', 'expected a value but found end of expression at column 14'],
    ['&& $a.output', "expected a value but found '&&' at column 1"],
    ['$a.output $b.output', "unexpected '$b.output' at column 11 (join conditions with && or ||)"],
    ['$a.output == 1 == 2', "unexpected '==' at column 16 (comparisons do not chain; add parentheses)"],
    ['$a.output == 12abc', "unexpected 'a' after a number at column 16"],
    ['$a.output ~ 1', "unexpected '~' at column 11"],
    [`${'('.repeat(100)}$a.output${')'.repeat(100)}`, 'expression nested too deeply at column 66'],
  ])('rejects %j with %j', (src, error) => {
    expect(parseWhen(src)).toEqual({ ok: false, error });
  });
});

describe('evaluateWhen', () => {
  const outputs = { test: 'ok', skip: 'skip', three: '3', empty: '', no: 'false', zero: '0', padded: '  yes\n', quote: "it's" };
  it.each([
    ["$test.output == 'ok'", true],
    ['$test.output == "ok"', true],
    ["$test.output != 'ok'", false],
    ["$skip.output != 'skip'", false],
    ['$three.output == 3', true],
    ['$three.output == 3.0', true],
    ["$three.output == '3'", true],
    ['$three.output != 4', true],
    ['$test.output', true],
    ['$empty.output', false],
    ['$no.output', false],
    ['$zero.output', false],
    ['$missing.output', false],
    ["$missing.output == ''", true],
    ['!$empty.output', true],
    ['!!$test.output', true],
    ["$padded.output == 'yes'", true],
    ["$quote.output == 'it\\'s'", true],
    ['$quote.output == "it\'s"', true],
    ['$no.output == false', true],
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ["''", false],
    ["'x'", true],
    ["$test.output == 'ok' && $three.output == 3", true],
    ["$test.output == 'no' && $three.output == 3", false],
    ["$test.output == 'no' || $three.output == 3", true],
    ["$test.output == 'no' || $three.output == 4 && true", false],
    ["($test.output == 'ok' || false) && !($three.output == 4)", true],
    ["($test.output == 'ok') == true", true],
    ["!$test.output == 'ok'", false],
  ] as const)('%s → %s', (src, expected) => {
    expect(evaluate(src, outputs)).toBe(expected);
  });

  it('binds && tighter than ||', () => {
    expect(evaluate("'x' || '' && ''", {})).toBe(true);
    expect(evaluate("('x' || '') && ''", {})).toBe(false);
  });

  it('never evaluates output text as code', () => {
    expect(evaluate("$a.output == 'x'", { a: "x' || '1" })).toBe(false);
    expect(evaluate('$a.output', { a: 'process.exit(1)' })).toBe(true);
  });
});
