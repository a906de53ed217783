/** What the `svc workflow …` commands share: which directory they speak for, and how wide to draw. */

import { resolve } from 'node:path';
import type { WorkflowDocument } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';

/**
 * The project directory a command speaks for: `--cwd` resolved against the CLI's own working
 * directory, else that directory. Always sent, because the server's working directory is rarely
 * the project the user is standing in.
 */
export function cwdOption(given: string | undefined): string {
  return resolve(given !== undefined && given !== '' ? given : process.cwd());
}

/** One workflow (shared by show and graph). */
export function fetchWorkflow(cmd: CommandContext, name: string, cwd: string): Promise<WorkflowDocument> {
  return cmd.client().workflows.get(name, cwd);
}

/** Terminal width for drawings (100 when piped). */
export function columnsOf(cmd: CommandContext): number {
  const columns = (cmd.io.stdout as { columns?: number }).columns;
  return cmd.io.isStdoutTTY && typeof columns === 'number' && columns > 20 ? columns : 100;
}
