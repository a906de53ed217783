/**
 * What the `svc workflow …` commands share: which directory they speak for, and one way to call
 * the catalog through the server or, with none running, directly on the store.
 */

import { resolve } from 'node:path';
import { isApiError } from '../../../shared/errors.js';
import { ApiResponseError } from '../../api-client.js';
import { viaServerOrStore, type CommandContext, type ServerOrStore } from '../../command-context.js';

/**
 * The project directory a command speaks for: `--cwd` resolved against the CLI's own working
 * directory, else that directory. Always sent, because the server's working directory is rarely
 * the project the user is standing in.
 */
export function cwdOption(options: Record<string, unknown>): string {
  const given = options.cwd;
  return resolve(typeof given === 'string' && given !== '' ? given : process.cwd());
}

/** `/api/workflows?cwd=…` */
export function withCwd(path: string, cwd: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}cwd=${encodeURIComponent(cwd)}`;
}

/**
 * `viaServerOrStore`, with the domain's ApiError (thrown offline) turned into the same error the
 * server's answer would have given, so output and exit codes do not depend on the path taken.
 */
export async function viaCatalog<T>(cmd: CommandContext, ways: ServerOrStore<T>): Promise<T> {
  try {
    return await viaServerOrStore(cmd, ways);
  } catch (error) {
    // A brand check: offline, the error comes from the runtime bundle's own ApiError class.
    if (isApiError(error)) throw new ApiResponseError(error.status, error.toBody());
    throw error;
  }
}

/** Terminal width for drawings (100 when piped). */
export function columnsOf(cmd: CommandContext): number {
  const columns = (cmd.io.stdout as { columns?: number }).columns;
  return cmd.io.isStdoutTTY && typeof columns === 'number' && columns > 20 ? columns : 100;
}
