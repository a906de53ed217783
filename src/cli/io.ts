import type { Readable, Writable } from 'node:stream';
import { loadTerminalSettings } from '../shared/settings.js';

/**
 * The terminal, as every command sees it. Commands never touch `process.stdout` or `process.env`
 * directly, so tests drive them with `testIO()` and any TTY combination.
 */
export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  isStdoutTTY: boolean;
  isStderrTTY: boolean;
  isStdinTTY: boolean;
  /** Colour on: a TTY, `--no-color` not given, `NO_COLOR` empty, `CLICOLOR` not 0 (or `CLICOLOR_FORCE`). */
  color: boolean;
  /** Interactive prompts allowed: stdin and stdout are TTYs, not CI, `SVC_PROMPT_DISABLED` unset. */
  canPrompt: boolean;
  /** Spinners allowed: stderr is a TTY that reports its width (not 0), not CI, and no `--json`. */
  canSpin: boolean;
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

export interface IOOptions {
  noColor?: boolean;
  json?: boolean;
}

export function colorEnabled(env: NodeJS.ProcessEnv, isTTY: boolean, noColorFlag = false): boolean {
  const terminal = loadTerminalSettings(env);
  if (noColorFlag || terminal.noColor) return false;
  if (terminal.forceColor) return true;
  if (terminal.colorOff) return false;
  return isTTY;
}

/**
 * The width a terminal reports, when it is one a drawing can use: `undefined` for 0 or unknown.
 * Ptys made by `script`, some CI runners and containers report 0 columns; ora divides by the width
 * to know how many lines to clear, and with 0 it clears forever (issue 32): such a terminal gets
 * plain lines.
 */
export function terminalWidth(stream: unknown): number | undefined {
  const columns = (stream as { columns?: unknown } | undefined)?.columns;
  return typeof columns === 'number' && Number.isFinite(columns) && columns > 0 ? columns : undefined;
}

export function systemIO(options: IOOptions = {}, env: NodeJS.ProcessEnv = process.env): IO {
  const isStdoutTTY = Boolean(process.stdout.isTTY);
  const isStderrTTY = Boolean(process.stderr.isTTY);
  const isStdinTTY = Boolean(process.stdin.isTTY);
  const { ci, promptDisabled } = loadTerminalSettings(env);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    isStdoutTTY,
    isStderrTTY,
    isStdinTTY,
    color: colorEnabled(env, isStdoutTTY, options.noColor),
    canPrompt: isStdinTTY && isStdoutTTY && !ci && !promptDisabled,
    canSpin: isStderrTTY && terminalWidth(process.stderr) !== undefined && !ci && !options.json,
    env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  };
}

/** Everything on the command's stdin, as bytes (`--payload -`, `--body -`, a piped secret). */
export async function readStdin(io: Pick<IO, 'stdin'>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}
