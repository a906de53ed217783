import { PassThrough } from 'node:stream';
import type { IO } from './io.js';

export interface TestIO extends IO {
  stdoutText(): string;
  stderrText(): string;
}

/**
 * An in-memory terminal for running commands in process (as gh's `iostreams.Test()`): stdout and
 * stderr are collected; TTY flags, colour and the environment are what the test says.
 */
export function testIO(options: { env?: NodeJS.ProcessEnv; tty?: boolean; color?: boolean; canPrompt?: boolean } = {}): TestIO {
  let out = '';
  let err = '';
  const tty = options.tty ?? false;
  return {
    stdout: Object.assign(new PassThrough(), { isTTY: tty }),
    stderr: Object.assign(new PassThrough(), { isTTY: tty }),
    stdin: new PassThrough(),
    isStdoutTTY: tty,
    isStderrTTY: tty,
    isStdinTTY: false,
    color: options.color ?? false,
    canPrompt: options.canPrompt ?? false,
    canSpin: false,
    env: options.env ?? {},
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    stdoutText: () => out,
    stderrText: () => err,
  };
}
