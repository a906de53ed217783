import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../exit-codes.js';
import { defineCommand } from '../../define-command.js';
import { printJson } from '../../output.js';

/** The validators, from the runtime bundle (they need yaml and zod). */
type Tools = Pick<
  typeof import('../../../runtime.js'),
  'validateWorkflowSource' | 'checkWorkflowFile' | 'isWorkflowFileName' | 'checkedWhole' | 'assistantWarnings'
>;

interface FileReport {
  file: string;
  valid: boolean;
  errors: string[];
  /** What is valid but likely a mistake (an assistant a letter from claude or codex); never fails the file. */
  warnings: string[];
}

/** A directory argument stands for the workflow files directly inside it. */
async function expand(tools: Tools, arg: string): Promise<string[]> {
  const info = await stat(arg).catch(() => undefined);
  if (!info?.isDirectory()) return [arg];
  const names = (await readdir(arg)).filter(tools.isWorkflowFileName).sort();
  if (names.length === 0) throw new UsageError(`${arg}: no .yaml or .yml files in this directory`);
  return names.map((name) => join(arg, name));
}

/** Inside `.svc/workflows/` discovery also requires the file stem to equal `name`; elsewhere (drafts) it does not. */
const inWorkflowsFolder = (file: string) => basename(dirname(file)) === 'workflows' && basename(dirname(dirname(file))) === '.svc';

async function check(tools: Tools, file: string): Promise<FileReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { file, valid: false, errors: [`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`], warnings: [] };
  }
  const result = await tools.checkedWhole(() =>
    inWorkflowsFolder(file) ? tools.checkWorkflowFile(text, file) : tools.validateWorkflowSource(text, { filename: file }),
  );
  if (!result.ok) return { file, valid: false, errors: result.errors, warnings: [] };
  return { file, valid: true, errors: [], warnings: tools.assistantWarnings(result.raw).map((warning) => `${file}: warning: ${warning}`) };
}

/** Where discovery finds a project's workflows (catalog/bundled.ts PROJECT_WORKFLOWS_DIR), relative to the current directory. */
const PROJECT_WORKFLOWS = join('.svc', 'workflows');

/** With no file named: the current project's workflows (issue 32), as `svc workflow list` would find them. */
async function projectWorkflows(): Promise<string> {
  if (!(await stat(PROJECT_WORKFLOWS).catch(() => undefined))?.isDirectory()) {
    throw new UsageError(`no ${PROJECT_WORKFLOWS}/ in ${process.cwd()}: name workflow files or directories, or run it in a project`);
  }
  return PROJECT_WORKFLOWS;
}

/**
 * `svc workflow validate [file|dir...]`: offline — no server, no store — so it runs in CI and
 * pre-commit hooks. With no argument, the project's `.svc/workflows/` under the current directory. Prints each problem as `file:line:col: message` (the form editors and CI
 * annotators parse), then a count on a line of its own; exit 1 when any file is invalid, else 0
 * with one OK line. Warnings (`file: warning: …`) come first and change no exit code. Everything goes to stdout.
 */
export default defineCommand({
  args: [['[file...]', "workflow files, or directories of them (default: this project's .svc/workflows/)"]],
  run: async (cmd, [given]) => {
    const args = given.length > 0 ? given : [await projectWorkflows()];
    const tools: Tools = await import('../../../runtime.js');
    const files = (await Promise.all(args.map((arg) => expand(tools, arg)))).flat();
    const reports = await Promise.all(files.map((file) => check(tools, file)));
    const invalid = reports.filter((r) => !r.valid);
    if (cmd.globals.json) {
      printJson(cmd.io, { valid: invalid.length === 0, files: reports });
    } else {
      for (const report of reports) for (const warning of report.warnings) cmd.io.out(`${warning}\n`);
      for (const report of invalid) for (const error of report.errors) cmd.io.out(`${error}\n`);
      const count = (n: number) => `${n} workflow file${n === 1 ? '' : 's'}`;
      if (invalid.length === 0) cmd.io.out(`ok: ${count(reports.length)} valid\n`);
      else {
        // On stdout after the errors, as tsc and eslint print their count: in one stream the count
        // always follows the last error on a line of its own, however a terminal, a pipe (`2>&1`)
        // or a tool that joins stdout and stderr puts the two together (issue 29 saw it glued to
        // the last error), and `> report.txt` keeps it.
        const errors = invalid.reduce((n, r) => n + r.errors.length, 0);
        cmd.io.out(`${invalid.length} of ${count(reports.length)} invalid (${errors} error${errors === 1 ? '' : 's'})\n`);
      }
    }
    return invalid.length === 0 ? 0 : 1;
  },
});
