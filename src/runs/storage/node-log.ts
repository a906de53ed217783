import { createWriteStream, type WriteStream } from 'node:fs';
import { capUtf8 } from '../model/node-state.js';

/**
 * The most a node's `<node>.log` holds (docs/decisions.md, "Node output"): twice the output
 * limit, so a node at that limit still has room for what it prints on stderr. The log is on disk,
 * not in memory; the limit keeps one endless printer from filling the disk.
 */
export const LOG_LIMIT_BYTES = 32 * 1024 * 1024;

/** The line a cut log ends with; it starts a line of its own wherever the cut fell. */
export const LOG_TRUNCATED_MARKER = `\n[svc] log truncated at ${LOG_LIMIT_BYTES / (1024 * 1024)} MiB: the node printed more, which is not kept\n`;

/**
 * A failed node's `logTail` (docs/decisions.md, "Node output"): its last lines, enough to read why
 * it failed in `svc run` and the run detail without the log, bounded so that a record and its
 * `node_failed` event stay small whatever the node printed.
 */
export const LOG_TAIL_LINES = 20;
export const LOG_TAIL_BYTES = 4 * 1024;

export interface NodeLog {
  write(text: string): void;
  /** The last lines written (at most LOG_TAIL_LINES and LOG_TAIL_BYTES), also past the log's limit. */
  tail(): string;
  /** Whether the log reached its limit (and ends with the marker). */
  readonly truncated: boolean;
  end(): Promise<void>;
}

/**
 * A node's `<node>.log`, opened on its first output: most nodes of a chain print nothing, and
 * opening and closing a file for each was a measurable part of a node's overhead.
 */
export function openNodeLog(path: string): NodeLog {
  let stream: WriteStream | undefined;
  let written = 0;
  let truncated = false;
  let recent = '';
  return {
    write(text) {
      // Twice the tail's bytes: enough to cut at a line's start however the chunks fell.
      recent = (recent + text).slice(-2 * LOG_TAIL_BYTES);
      if (truncated) return;
      if (!stream) {
        stream = createWriteStream(path);
        stream.on('error', () => {}); // the log is a convenience; the node runs on without it
      }
      const bytes = Buffer.byteLength(text);
      if (written + bytes <= LOG_LIMIT_BYTES) {
        written += bytes;
        stream.write(text);
        return;
      }
      truncated = true;
      stream.write(capUtf8(text, LOG_LIMIT_BYTES - written).text + LOG_TRUNCATED_MARKER);
    },
    tail: () => lastLines(recent),
    get truncated() {
      return truncated;
    },
    end: () => new Promise<void>((resolve) => (stream ? stream.end(resolve) : resolve())),
  };
}

/** The last LOG_TAIL_LINES lines of `text`, at most LOG_TAIL_BYTES; a line cut at its start begins with `…`. */
export function lastLines(text: string): string {
  const lines = text.replace(/\n+$/, '').split('\n').slice(-LOG_TAIL_LINES);
  let tail = lines.join('\n');
  if (Buffer.byteLength(tail) <= LOG_TAIL_BYTES) return tail;
  // Cut from the front (the end is where the failure is); a character split by the cut decodes to U+FFFD, dropped.
  const bytes = Buffer.from(tail);
  tail = bytes
    .subarray(bytes.length - (LOG_TAIL_BYTES - 3))
    .toString('utf8')
    .replace(/^\uFFFD+/, '');
  return `…${tail}`;
}
