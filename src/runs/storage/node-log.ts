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

export interface NodeLog {
  write(text: string): void;
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
  return {
    write(text) {
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
    get truncated() {
      return truncated;
    },
    end: () => new Promise<void>((resolve) => (stream ? stream.end(resolve) : resolve())),
  };
}
