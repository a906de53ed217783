/** What the `svc workflow …` commands share: which directory they speak for, and how wide to draw. */

import { resolve } from 'node:path';
import type { WorkflowDocument } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import type { OptionSpec } from '../../define-command.js';
import { styler } from '../../output.js';

/**
 * The project directory a command speaks for: `--cwd` resolved against the CLI's own working
 * directory, else that directory. Always sent, because the server's working directory is rarely
 * the project the user is standing in.
 */
export function cwdOption(given: string | undefined): string {
  return resolve(given !== undefined && given !== '' ? given : process.cwd());
}

/** `--workspace <id>`: the workspace whose own workflows come first (docs/contract.md, "Workflow files"). */
export const WORKSPACE_OPTION = [
  '--workspace <id>',
  'the workspace to speak for: its own workflows first (default: the one whose checkout holds the directory)',
] as const satisfies OptionSpec;

/** The client's `place` for `--workspace`. */
export const workspaceOf = (given: string | undefined): { workspaceId?: string } => (given ? { workspaceId: given } : {});

/** One workflow (shared by show and graph). */
export function fetchWorkflow(cmd: CommandContext, name: string, cwd: string, workspaceId?: string): Promise<WorkflowDocument> {
  return cmd.client().workflows.get(name, cwd, workspaceOf(workspaceId));
}

/** Terminal width for drawings (100 when piped). */
export function columnsOf(cmd: CommandContext): number {
  const columns = (cmd.io.stdout as { columns?: number }).columns;
  return cmd.io.isStdoutTTY && typeof columns === 'number' && columns > 20 ? columns : 100;
}

/**
 * Files a listing could not use (`{ filename, error }`, from `svc workflow list` and `svc
 * commands`), on stderr under a count: the listing itself still succeeds (exit 0).
 */
export async function reportUnusableFiles(cmd: CommandContext, errors: readonly { filename: string; error: string }[], noun: string): Promise<void> {
  if (errors.length === 0) return;
  const paint = await styler({ ...cmd.io, color: cmd.io.color && cmd.io.isStderrTTY });
  const files = new Set(errors.map((e) => e.filename)).size;
  cmd.io.err(`${paint.red(`${files} ${noun}${files === 1 ? '' : 's'} could not be used:`)}\n`);
  for (const error of errors) cmd.io.err(`${error.error}\n`);
}
