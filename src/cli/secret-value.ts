import { UsageError } from './exit-codes.js';
import { readStdin, type IO } from './io.js';
import { askOrStop } from './prompt.js';

/**
 * A value given as `KEY` alone, so a secret need not appear in the shell history or in `ps`: from
 * stdin when piped (the whole input, less one trailing newline), else asked for, hidden.
 */
export async function readSecretValue(io: IO, key: string): Promise<string> {
  if (io.isStdinTTY) {
    if (!io.canPrompt) throw new UsageError(`give ${key}=VALUE, or pipe the value in`);
    const prompts = await import('@clack/prompts');
    return askOrStop(io, `give ${key}=VALUE, or pipe the value in`, (terminal) => prompts.password({ message: `Value of ${key}`, ...terminal }));
  }
  const value = (await readStdin(io)).toString('utf8').replace(/\r?\n$/, '');
  if (value === '') throw new UsageError(`no value for ${key} on stdin; give ${key}=VALUE, or pipe the value in`);
  return value;
}
