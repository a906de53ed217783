/**
 * One workflow FILE, as discovery and `svc workflow validate` see it: the definition must be
 * valid AND its file stem must equal its `name` (docs/contract.md, "Workflow files": the file is `<name>.yaml`), so that
 * a name always says which file to open, and saving `<name>` can only ever touch that one file.
 */

import { basename, extname } from 'node:path';
import type { RawWorkflow, WorkflowDefinition } from './schema.js';
import { validateWorkflowSource } from './validate.js';
import { readYamlSource } from './yaml-source.js';

export const WORKFLOW_FILE_EXTENSIONS = ['.yaml', '.yml'] as const;

export type WorkflowFileCheck =
  | { readonly ok: true; readonly raw: RawWorkflow; readonly workflow: WorkflowDefinition; readonly text: string }
  | { readonly ok: false; readonly errors: string[] };

export function isWorkflowFileName(file: string): boolean {
  const name = basename(file);
  return !name.startsWith('.') && (WORKFLOW_FILE_EXTENSIONS as readonly string[]).includes(extname(name).toLowerCase());
}

/** `review.yaml` → `review`. */
export function fileStem(file: string): string {
  const name = basename(file);
  return name.slice(0, name.length - extname(name).length);
}

/** `file:line:col: ` for a path in the YAML text (or `file: ` when it cannot be placed). */
export function placeIn(text: string, filename: string, path: readonly (string | number)[]): string {
  const position = readYamlSource(text).locate({ path, message: '' });
  return position === undefined ? `${filename}: ` : `${filename}:${position.line}:${position.col}: `;
}

/**
 * Validates the text of a workflow file. `filename` prefixes every error (`file:line:col: …`);
 * the stem rule is checked only once the definition itself is valid, so errors never pile up
 * about a name that is wrong anyway.
 */
export function checkWorkflowFile(text: string, filename: string): WorkflowFileCheck {
  const result = validateWorkflowSource(text, { filename });
  if (!result.ok) return result;
  const stem = fileStem(filename);
  if (result.raw.name !== stem) {
    return {
      ok: false,
      errors: [
        `${placeIn(text, filename, ['name'])}name: '${result.raw.name}' does not match the file name '${basename(filename)}' ` +
          `(rename the file to ${result.raw.name}${extname(filename)}, or set name: ${stem})`,
      ],
    };
  }
  return { ok: true, raw: result.raw, workflow: result.workflow, text };
}
