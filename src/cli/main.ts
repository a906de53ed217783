import { CommanderError } from 'commander';
import { ApiResponseError, ServerExchangeError, ServerUnreachableError } from '../client/errors.js';
import { isDomainError } from '../shared/errors.js';
import { loadTerminalSettings } from '../shared/settings.js';
import { packageVersion } from '../shared/version.js';
import { errorBodyOf } from './error-body.js';
import { CliError, EXIT } from './exit-codes.js';
import type { IO } from './io.js';
import { printJson } from './output.js';
import { buildProgram } from './program.js';

/** Where an error is reported: the terminal's two streams, and whether `--json` was asked for. */
export interface ErrorReport extends Pick<IO, 'out' | 'err' | 'isStdoutTTY'> {
  json: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The exit code of a failure (docs/contract.md, "Exit codes"). */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ServerUnreachableError) return EXIT.unreachable;
  // The API said no (the same answer over HTTP and in process), an exchange broke off, or a bug.
  return EXIT.failed;
}

/**
 * Prints an error the way users expect from a CLI: one line, no stack, and the right exit code.
 * With `--json`, one JSON document on stdout instead, `{ error, message, details? }` with svc's
 * code, so a script reads `merge_conflict` rather than a sentence (docs/contract.md, "CLI").
 */
export function reportError(error: unknown, report: ErrorReport): number {
  const code = exitCodeOf(error);
  // Help and --version are commander's way out, not failures.
  if (code === EXIT.ok) return code;
  if (report.json) {
    const { status: _status, ...body } = errorBodyOf(error);
    printJson(report, body);
    return code;
  }
  // Commander has already printed its message (and the help, when asked for).
  if (error instanceof CommanderError) return code;
  if (
    error instanceof CliError ||
    error instanceof ApiResponseError ||
    isDomainError(error) ||
    error instanceof ServerExchangeError ||
    error instanceof ServerUnreachableError
  ) {
    report.err(`svc: ${error.message}\n`);
    return code;
  }
  const message = error instanceof Error ? error.message : String(error);
  report.err(`svc: unexpected error: ${message}\n`);
  if (loadTerminalSettings(report.env ?? process.env).debug && error instanceof Error) report.err(`${error.stack}\n`);
  return code;
}

/** `--json` among the arguments (before `--`, after which words are the command's own): failures print JSON. */
export function asksForJson(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** Runs `svc <args>` in this process with `io` as the terminal; the exit code is returned (tests). */
export async function runSvc(args: readonly string[], io: IO): Promise<number> {
  try {
    return await buildProgram(packageVersion(), io).run(args, 'user');
  } catch (error) {
    return reportError(error, { out: io.out, err: io.err, isStdoutTTY: io.isStdoutTTY, json: asksForJson(args), env: io.env });
  }
}

export async function main(argv: string[]): Promise<void> {
  // `svc openapi | head`: a reader that stops early is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  // A command left waiting on nothing (the event loop empty, its promise unsettled) would make Node
  // exit 13, "unsettled top-level await", a code svc does not document: it exits 1 and says so.
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('svc: the command stopped waiting for something that cannot come (was stdin closed?)\n');
    process.exitCode = EXIT.failed;
  });
  try {
    process.exitCode = await buildProgram(packageVersion()).run(argv);
  } catch (error) {
    process.exitCode = reportError(error, {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      isStdoutTTY: Boolean(process.stdout.isTTY),
      json: asksForJson(argv.slice(2)),
    });
  } finally {
    settled = true;
  }
}
