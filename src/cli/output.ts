import type { IO } from './io.js';

/** `--json`: exactly one JSON document on stdout, indented on a TTY, compact when piped. */
export function printJson(io: Pick<IO, 'out' | 'isStdoutTTY'>, value: unknown): void {
  io.out(`${JSON.stringify(value, null, io.isStdoutTTY ? 2 : undefined)}\n`);
}

export type Cell = string | number | boolean | null | undefined;

const plain = (cell: Cell) => (cell === null || cell === undefined ? '' : String(cell)).replace(/[\t\n]/g, ' ');

/**
 * A table on a TTY (cli-table3, loaded only then); tab-separated lines with no header and no
 * truncation when piped, so scripts can `cut -f`.
 */
export async function printTable(io: IO, headers: string[], rows: Cell[][]): Promise<void> {
  if (!io.isStdoutTTY) {
    for (const row of rows) io.out(`${row.map(plain).join('\t')}\n`);
    return;
  }
  const { default: Table } = await import('cli-table3');
  const paint = await styler(io);
  const table = new Table({
    head: headers.map((h) => paint.bold(h)),
    style: { head: [], border: [] },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '  ',
    },
  });
  for (const row of rows) table.push(row.map(plain));
  io.out(`${table.toString()}\n`);
}

export interface Styler {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const identity: Styler = { bold: String, dim: String, red: String, green: String, yellow: String, cyan: String };

/**
 * Colours through chalk, with the decision made by `io.color`: chalk 5 ignores NO_COLOR on its
 * own, so its level is set here rather than trusted.
 */
export async function styler(io: IO): Promise<Styler> {
  if (!io.color) return identity;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return { bold: chalk.bold, dim: chalk.dim, red: chalk.red, green: chalk.green, yellow: chalk.yellow, cyan: chalk.cyan };
}

/** A server bound to every address (`SVC_HOST=0.0.0.0`) is reached from a browser here through loopback. */
export function browsableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

/** A byte count as a person reads it: `812 B`, `4.2 KiB`, `1.3 GiB` (binary units, as `du -h`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
