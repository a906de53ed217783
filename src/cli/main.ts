import { CommanderError } from 'commander';
import { ApiResponseError, ServerExchangeError, ServerUnreachableError } from '../client/errors.js';
import { isDomainError } from '../shared/errors.js';
import { loadTerminalSettings } from '../shared/settings.js';
import { packageVersion } from '../shared/version.js';
import { CliError, EXIT } from './exit-codes.js';
import type { IO } from './io.js';
import { buildProgram } from './program.js';

/** Prints an error the way users expect from a CLI: one line, no stack, and the right exit code. */
export function reportError(error: unknown, err: (text: string) => void, env: NodeJS.ProcessEnv = process.env): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (and the help, when asked for).
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    err(`svc: ${error.message}\n`);
    return error.exitCode;
  }
  // The API said no (the same answer over HTTP and in process), or no server answered.
  if (error instanceof ApiResponseError || isDomainError(error)) {
    err(`svc: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof ServerExchangeError) {
    err(`svc: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof ServerUnreachableError) {
    err(`svc: ${error.message}\n`);
    return EXIT.unreachable;
  }
  const message = error instanceof Error ? error.message : String(error);
  err(`svc: unexpected error: ${message}\n`);
  if (loadTerminalSettings(env).debug && error instanceof Error) err(`${error.stack}\n`);
  return EXIT.failed;
}

/** Runs `svc <args>` in this process with `io` as the terminal; the exit code is returned (tests). */
export async function runSvc(args: readonly string[], io: IO): Promise<number> {
  try {
    return await buildProgram(packageVersion(), io).run(args, 'user');
  } catch (error) {
    return reportError(error, io.err, io.env);
  }
}

export async function main(argv: string[]): Promise<void> {
  // `svc openapi | head`: a reader that stops early is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    process.exitCode = await buildProgram(packageVersion()).run(argv);
  } catch (error) {
    process.exitCode = reportError(error, (text) => process.stderr.write(text));
  }
}
