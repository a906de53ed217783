import type { Readable, Writable } from 'node:stream';

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
  /** Spinners allowed: stderr is a TTY, not CI, and no `--json`. */
  canSpin: boolean;
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

export interface IOOptions {
  noColor?: boolean;
  json?: boolean;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

export function colorEnabled(env: NodeJS.ProcessEnv, isTTY: boolean, noColorFlag = false): boolean {
  if (noColorFlag || (env.NO_COLOR ?? '') !== '') return false;
  if (truthy(env.CLICOLOR_FORCE)) return true;
  if (env.CLICOLOR === '0') return false;
  return isTTY;
}

export function systemIO(options: IOOptions = {}, env: NodeJS.ProcessEnv = process.env): IO {
  const isStdoutTTY = Boolean(process.stdout.isTTY);
  const isStderrTTY = Boolean(process.stderr.isTTY);
  const isStdinTTY = Boolean(process.stdin.isTTY);
  const ci = truthy(env.CI);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    isStdoutTTY,
    isStderrTTY,
    isStdinTTY,
    color: colorEnabled(env, isStdoutTTY, options.noColor),
    canPrompt: isStdinTTY && isStdoutTTY && !ci && !truthy(env.SVC_PROMPT_DISABLED),
    canSpin: isStderrTTY && !ci && !options.json,
    env,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  };
}
