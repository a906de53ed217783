import { CommanderError } from 'commander';
import { isApiError } from '../shared/errors.js';
import { packageVersion } from '../shared/version.js';
import { CliError, EXIT } from './exit-codes.js';
import { buildProgram } from './program.js';

/** Prints an error the way users expect from a CLI: one line, no stack, and the right exit code. */
function report(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (and the help, when asked for).
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) {
    process.stderr.write(`svc: ${error.message}\n`);
    return error.exitCode;
  }
  // The domain's expected failures, met offline on the store: reported as the server's answer
  // would be online (ApiResponseError), not as a crash.
  if (isApiError(error)) {
    process.stderr.write(`svc: ${error.message}\n`);
    return EXIT.failed;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc: unexpected error: ${message}\n`);
  if (process.env.SVC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return EXIT.failed;
}

export async function main(argv: string[]): Promise<void> {
  // `svc openapi | head`: a reader that stops early is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const program = buildProgram(packageVersion());
  try {
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = report(error);
  }
}
