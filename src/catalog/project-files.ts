/**
 * Writing and deleting project workflow files — the only place svc writes into a user's project.
 * Every path is built from a name that matched WorkflowNameSchema (no `/`, no leading `.`), so
 * nothing can land outside `<cwd>/.svc/workflows/`; the check is repeated here because the CLI's
 * offline mode calls these functions without the API's edge validation.
 */

import { stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../shared/atomic-file.js';
import { DomainError } from '../shared/errors.js';
import { PROJECT_WORKFLOWS_DIR } from './bundled.js';
import { checkedWhole, WorkflowNameSchema, type RawWorkflow, validateWorkflowSource, WORKFLOW_FILE_EXTENSIONS } from '../workflows/index.js';

const isDirectory = (path: string) =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

function invalidCwd(message: string): DomainError {
  return new DomainError('invalid_request', message, [{ path: 'cwd', message }]);
}

/** The schema's check again (see the header); a bad name is 400 `invalid_request` naming `name`. */
export function assertWorkflowName(name: string): void {
  const result = WorkflowNameSchema.safeParse(name);
  if (!result.success) {
    const message = result.error.issues[0]?.message ?? `invalid workflow name '${name}'`;
    throw new DomainError('invalid_request', `${message}.`, [{ path: 'name', message }]);
  }
}

/** The project files that may hold workflow `name` under `cwd`: `<name>.yaml`, `<name>.yml`. */
export function projectFilesOf(cwd: string, name: string): string[] {
  assertWorkflowName(name);
  const folder = join(cwd, PROJECT_WORKFLOWS_DIR);
  return WORKFLOW_FILE_EXTENSIONS.map((ext) => join(folder, `${name}${ext}`)).filter((file) => dirname(file) === folder);
}

/**
 * A definition object as YAML text: multi-line strings as `|` blocks and no folding of long
 * lines, so prompts and scripts read (and diff) the way they were written.
 */
export function toYamlText(raw: RawWorkflow): string {
  return stringify(raw, { lineWidth: 0, blockQuote: 'literal' });
}

export interface SavedFile {
  readonly filename: string;
  readonly created: boolean;
  readonly raw: RawWorkflow;
}

/**
 * Validates `definition` (YAML text or an object) and writes it as `<cwd>/.svc/workflows/<name>.yaml`
 * (or the existing `<name>.yml`, so saving never creates a duplicate). Text is kept exactly as
 * sent — comments and layout are the user's; an object is written as YAML in the schema's key order.
 */
export async function saveProjectWorkflow(cwd: string, name: string, definition: unknown): Promise<SavedFile> {
  const [yamlFile, ymlFile] = projectFilesOf(cwd, name) as [string, string];
  const folder = dirname(yamlFile);
  if (!(await isDirectory(folder))) {
    throw invalidCwd(`'${cwd}' has no ${PROJECT_WORKFLOWS_DIR}/ folder; project workflows are saved there (create it with: mkdir -p ${folder}).`);
  }
  const result = await checkedWhole(() => validateWorkflowSource(definition));
  if (!result.ok) {
    const count = result.errors.length;
    throw new DomainError('invalid_workflow', `The workflow definition has ${count} error${count === 1 ? '' : 's'}; nothing was saved.`, undefined, {
      errors: result.errors,
    });
  }
  if (result.raw.name !== name) {
    const message = `The definition's name '${result.raw.name}' differs from '${name}' in the path; they must be equal.`;
    throw new DomainError('invalid_request', message, [{ path: 'definition.name', message }]);
  }
  const target = !(await isFile(yamlFile)) && (await isFile(ymlFile)) ? ymlFile : yamlFile;
  const created = !(await isFile(target));
  await writeFileAtomic(target, typeof definition === 'string' ? definition : toYamlText(result.raw));
  return { filename: target, created, raw: result.raw };
}

/** Deletes the project files of `name` under `cwd`; resolves to the files removed (none → []). */
export async function deleteProjectWorkflow(cwd: string, name: string): Promise<string[]> {
  const removed: string[] = [];
  for (const file of projectFilesOf(cwd, name)) {
    try {
      await unlink(file);
      removed.push(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return removed;
}
