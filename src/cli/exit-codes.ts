import type { ClientFailureCode } from '../shared/errors.js';

/** Exit codes (docs/contract.md, "Exit codes"); `svc help exit-codes` prints this table. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  cancelled: 3,
  paused: 4,
  unreachable: 5,
  /** The run completed, but its agent was refused tool calls it asked for (docs/contract.md, "Exit codes"). */
  toolsDenied: 6,
} as const;

export const EXIT_CODE_HELP = `Exit codes:
  0  success; the run completed
  1  failure: the command or the run failed
  2  usage error: unknown command, bad flag or argument, or one no prompt can ask for (no terminal, or stdin closed first)
  3  the run was cancelled, abandoned or rejected; or a prompt was cancelled
  4  the run followed (svc run, streaming or --wait; svc resume; svc watch --exit-status) is paused at an approval gate, or waits at a wait node with no server to continue it
  5  a server is required but none is reachable (start one with \`svc serve\`)
  6  the run completed, but its agent was denied tool calls (\`svc runs show\` lists them)

With --json, a failure prints one JSON document on stdout: { "error": code, "message", "details"? }.
`;

/** The code of a CLI error in `--json`'s error document, by default the one of its exit code. */
export type CliErrorCode = Exclude<ClientFailureCode, 'server_exchange_failed'>;

const CODE_OF_EXIT: Partial<Record<number, CliErrorCode>> = {
  [EXIT.usage]: 'usage_error',
  [EXIT.cancelled]: 'cancelled',
  [EXIT.unreachable]: 'server_unreachable',
};

/** An error the CLI reports as a message (no stack) and an exit code; with `--json`, as svc's error body (error-body.ts). */
export class CliError extends Error {
  readonly code: CliErrorCode;

  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
    code?: CliErrorCode,
  ) {
    super(message);
    this.name = 'CliError';
    this.code = code ?? CODE_OF_EXIT[exitCode] ?? 'svc_error';
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}
