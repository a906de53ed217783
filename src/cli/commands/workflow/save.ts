import { readFile } from 'node:fs/promises';
import { ApiResponseError, type SavedWorkflowDocument } from '../../../client/index.js';
import { CWD_OPTION, defineCommand } from '../../define-command.js';
import { CliError, EXIT } from '../../exit-codes.js';
import { printJson } from '../../output.js';
import { cwdOption } from './_shared.js';

/** The name to save under: the file's `name:` when it has a readable one, else its stem (validation then explains). */
async function nameOf(text: string, file: string): Promise<string> {
  const { fileStem, parseYaml } = await import('../../../runtime.js');
  try {
    const value = parseYaml(text) as { name?: unknown } | null;
    if (typeof value?.name === 'string' && value.name !== '') return value.name;
  } catch {
    // Unparseable: the server's validation says where.
  }
  return fileStem(file);
}

/** `3:5: msg` from the server → `file:3:5: msg`, so the lines point into the local file. */
const located = (file: string, error: string) => (/^\d+:\d+: /.test(error) ? `${file}:${error}` : `${file}: ${error}`);

/**
 * `svc workflow save <file> [--cwd dir]`: validates the file and writes it, text as is, to
 * `<cwd>/.svc/workflows/<name>.yaml` (through the server when one runs).
 */
export default defineCommand({
  args: [['<file>', 'workflow YAML file']],
  options: { cwd: CWD_OPTION },
  run: async (cmd, [file], options) => {
    const cwd = cwdOption(options.cwd);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new CliError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const name = await nameOf(text, file);
    let saved: SavedWorkflowDocument;
    try {
      saved = await cmd.client().workflows.save(name, text, cwd);
    } catch (error) {
      const errors = error instanceof ApiResponseError ? error.body.errors : undefined;
      if (!Array.isArray(errors)) throw error;
      for (const line of errors) cmd.io.out(`${located(file, String(line))}\n`);
      throw new CliError(`${file} was not saved: ${error instanceof Error ? error.message : ''}`.trim(), EXIT.failed);
    }
    if (cmd.globals.json) return printJson(cmd.io, saved);
    cmd.io.out(`Saved ${saved.workflow.name} to ${saved.filename}\n`);
    for (const warning of saved.errors ?? []) cmd.io.err(`warning: ${warning}\n`);
  },
});
