import { readFile } from 'node:fs/promises';
import { defineCommand, RUN_ARG } from '../../define-command.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { carriedOn } from './_decide.js';
import { readStdin } from '../../io.js';

/**
 * `svc signal <run> <event> [--payload file|-]`: delivers the event to the run's node waiting for it
 * (docs/decisions.md, "Waits and signals"); the payload's text becomes that node's output.
 */
export default defineCommand({
  args: [RUN_ARG, ['<event>', 'the event a wait node of the run waits for']],
  options: { payload: ['--payload <file>', "the waiting node's output: this file's text ('-': stdin); none: empty"] },
  run: async (cmd, [id, event], options) => {
    let payload: string | undefined;
    if (options.payload !== undefined) {
      try {
        payload = options.payload === '-' ? (await readStdin(cmd.io)).toString('utf8') : await readFile(options.payload, 'utf8');
      } catch (error) {
        throw new CliError(`Cannot read the payload ${options.payload}: ${(error as Error).message}`, EXIT.failed);
      }
    }
    const run = await carriedOn(cmd, await cmd.client().runs.signal(id, { event, ...(payload !== undefined ? { payload } : {}) }));
    if (cmd.globals.json) return printJson(cmd.io, run);
    cmd.io.out(`Run ${run.id} signalled ${event} (now ${run.status}).\n`);
  },
});
