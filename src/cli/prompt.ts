import type { Readable, Writable } from 'node:stream';
import { CliError, EXIT, UsageError } from './exit-codes.js';
import type { IO } from './io.js';

/** What a @clack/prompts prompt is given: the command's terminal, and a signal that ends it. */
export interface PromptOptions {
  input: Readable;
  output: Writable;
  signal: AbortSignal;
}

/**
 * How a prompt ended: an answer, the user's cancel (Esc, Ctrl+C), stdin ending first, or the
 * caller's `interrupt` (`svc chat` closes its prompt to print a run's progress, then asks again).
 */
export type Asked<T> = { answer: T } | { ended: 'cancelled' | 'stdin-closed' | 'interrupted' };

/**
 * Runs a @clack/prompts prompt on the command's terminal, and ends it when stdin ends (a terminal
 * closed, `docker run -t` without `-i`): clack does not notice, and a prompt left waiting on an
 * input that has ended never settles, so Node exited 13 ("unsettled top-level await"), a code svc
 * does not document (issue 32). clack answers a cancel with a symbol; so does an aborted signal.
 */
export async function ask<T>(
  io: Pick<IO, 'stdin' | 'stdout'>,
  prompt: (options: PromptOptions) => Promise<T>,
  interrupt?: AbortSignal,
): Promise<Asked<Exclude<T, symbol>>> {
  const stdin = io.stdin;
  const controller = new AbortController();
  let closed = stdin.readableEnded || stdin.destroyed;
  const onClosed = () => {
    closed = true;
    controller.abort();
  };
  const onInterrupt = () => controller.abort();
  const events = ['end', 'close', 'error'] as const;
  for (const event of events) stdin.on(event, onClosed);
  interrupt?.addEventListener('abort', onInterrupt);
  if (closed || interrupt?.aborted) controller.abort();
  try {
    const answer = await prompt({ input: stdin, output: io.stdout, signal: controller.signal });
    if (typeof answer !== 'symbol') return { answer: answer as Exclude<T, symbol> };
    return { ended: closed ? 'stdin-closed' : interrupt?.aborted ? 'interrupted' : 'cancelled' };
  } finally {
    for (const event of events) stdin.off(event, onClosed);
    interrupt?.removeEventListener('abort', onInterrupt);
  }
}

/**
 * A prompt whose answer the command needs: a cancel exits 3, stdin closed before an answer exits 2
 * (as a missing argument where no prompt may ask), saying what to give instead (`instead`).
 */
export async function askOrStop<T>(
  io: Pick<IO, 'stdin' | 'stdout'>,
  instead: string,
  prompt: (options: PromptOptions) => Promise<T>,
): Promise<Exclude<T, symbol>> {
  const asked = await ask(io, prompt);
  if ('answer' in asked) return asked.answer;
  if (asked.ended === 'cancelled') throw new CliError('Cancelled.', EXIT.cancelled);
  throw new UsageError(`stdin closed before an answer; ${instead}`);
}
