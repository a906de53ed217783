import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { DomainError } from '../shared/errors.js';

/**
 * The one check of a project directory (`cwd` of the workflow and run endpoints, `--cwd` of the
 * CLI): an existing absolute directory, whose `.svc/` holds project workflows and commands.
 * Routes, the catalog and the CLI all use it, so the rule and its message are the same everywhere.
 */

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The one message for a `cwd` that is not an existing absolute directory. */
export const projectDirMessage = (cwd: string) =>
  isAbsolute(cwd) ? `cwd '${cwd}' is not an existing directory.` : `cwd '${cwd}' is not an existing directory (it must be an absolute path).`;

export const PROJECT_DIR_DESCRIPTION = "An existing absolute directory: the project whose .svc/ is read; default: the server's working directory.";

/** An existing absolute directory, normalized (`/a/b/../c` → `/a/c`). */
export const ProjectDirSchema = z
  .string()
  .refine((cwd) => isAbsolute(cwd) && isDirectory(cwd), { error: (issue) => projectDirMessage(String(issue.input)) })
  .transform((cwd) => resolve(cwd))
  .describe(PROJECT_DIR_DESCRIPTION);

/** `cwd` checked by ProjectDirSchema; a bad one is 400 `invalid_request` naming `cwd`. */
export function checkProjectDir(cwd: string): string {
  const result = ProjectDirSchema.safeParse(cwd);
  if (result.success) return result.data;
  const message = result.error.issues[0]?.message ?? projectDirMessage(cwd);
  throw new DomainError('invalid_request', message, [{ path: 'cwd', message }]);
}

/** The project directory a request speaks for: `cwd` when given (checked), else `fallback`. */
export function resolveProjectDir(cwd: string | undefined, fallback: string): string {
  return cwd === undefined || cwd === '' ? fallback : checkProjectDir(cwd);
}
