/**
 * The most svc reads of one line of an agent's stdout, in bytes (docs/decisions.md, "Node output"). An agent's final answer may be 16 MiB (the output limit, runs/executor/nodes/output-limit.ts)
 * and arrives inside one JSON line, escaped: twice that leaves room for an answer at the limit
 * whose every character is escaped as two (`\n`, `\"`), so a long answer still ends with the
 * output limit's own failure. A longer line stops the agent (`output_too_large`).
 */
export const AGENT_LINE_LIMIT_BYTES = 32 * 1024 * 1024;

export interface LineSplitter {
  /** The next chunk of the stream. */
  push(chunk: Buffer): void;
  /** The stream ended: a last line without a newline is still a line. */
  end(): void;
}

/**
 * Splits a byte stream into lines (`\n` or `\r\n`), holding at most `maxBytes` of a line not yet
 * ended — unlike readline, which holds a line of any length. Past it, `onTooLong` is called once
 * and the rest of the stream is dropped. Splitting on the byte 0x0A never cuts a UTF-8 character.
 */
export function lineSplitter(maxBytes: number, onLine: (line: string) => void, onTooLong: () => void): LineSplitter {
  let parts: Buffer[] = [];
  let held = 0;
  let refused = false;

  const refuse = () => {
    refused = true;
    parts = [];
    held = 0;
    onTooLong();
  };
  const emit = (bytes: Buffer) => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    onLine(bytes.toString('utf8', 0, end));
  };
  const take = (piece: Buffer): boolean => {
    if (held + piece.length > maxBytes) {
      refuse();
      return false;
    }
    return true;
  };

  return {
    push(chunk) {
      if (refused) return;
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, newline);
        if (!take(piece)) return;
        emit(parts.length ? Buffer.concat([...parts, piece]) : piece);
        parts = [];
        held = 0;
        start = newline + 1;
      }
      const rest = chunk.subarray(start);
      if (rest.length === 0 || !take(rest)) return;
      parts.push(rest);
      held += rest.length;
    },
    end() {
      if (refused || parts.length === 0) return;
      const last = Buffer.concat(parts);
      parts = [];
      held = 0;
      emit(last);
    },
  };
}
