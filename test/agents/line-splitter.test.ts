// How svc reads an agent's stdout (docs/decisions.md, "Node output"): lines as readline
// gave them, but never more of one line held than the limit.
import { describe, expect, it } from 'vitest';
import { AGENT_LINE_LIMIT_BYTES, lineSplitter } from '../../src/agents/line-splitter.js';
import { OUTPUT_LIMIT_BYTES } from '../../src/runs/executor/nodes/output-limit.js';

function split(chunks: Array<string | Buffer>, maxBytes = 1024): { lines: string[]; tooLong: number } {
  const lines: string[] = [];
  let tooLong = 0;
  const splitter = lineSplitter(
    maxBytes,
    (line) => lines.push(line),
    () => tooLong++,
  );
  for (const chunk of chunks) splitter.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  splitter.end();
  return { lines, tooLong };
}

describe('lineSplitter', () => {
  it('gives whole lines however the chunks fall, \\r\\n or \\n, and a last line without a newline at the end', () => {
    expect(split(['{"a":', '1}\n{"b"', ':2}\r\n', '\n', 'tail'])).toEqual({ lines: ['{"a":1}', '{"b":2}', '', 'tail'], tooLong: 0 });
    expect(split(['one\ntwo\nthree\n'])).toEqual({ lines: ['one', 'two', 'three'], tooLong: 0 });
  });

  it('keeps a UTF-8 character whole when a chunk ends inside it', () => {
    const bytes = Buffer.from('{"text":"héllo ✓"}\n');
    const cut = bytes.indexOf(0xa9); // the second byte of é
    expect(split([bytes.subarray(0, cut), bytes.subarray(cut)]).lines).toEqual(['{"text":"héllo ✓"}']);
  });

  it('takes a line of exactly the limit', () => {
    expect(split(['x'.repeat(10), '\n'], 10)).toEqual({ lines: ['x'.repeat(10)], tooLong: 0 });
    expect(split(['x'.repeat(10)], 10)).toEqual({ lines: ['x'.repeat(10)], tooLong: 0 });
  });

  it('refuses a longer line once, whether it ends or not, and drops everything after it', () => {
    expect(split(['ok\n', 'x'.repeat(6), 'x'.repeat(5), '\nlater\n'], 10)).toEqual({ lines: ['ok'], tooLong: 1 });
    expect(split(['x'.repeat(4), 'x'.repeat(4), 'x'.repeat(4), 'x'.repeat(4)], 10)).toEqual({ lines: [], tooLong: 1 });
    expect(split([`${'x'.repeat(11)}\nlater\n`], 10)).toEqual({ lines: [], tooLong: 1 });
  });

  it("leaves room in a line for an agent's answer at the output limit, escaped", () => {
    expect(AGENT_LINE_LIMIT_BYTES).toBeGreaterThanOrEqual(2 * OUTPUT_LIMIT_BYTES);
  });
});
