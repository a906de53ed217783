/**
 * What this process is, decided once where it starts: `svc serve` (server/listen.ts) is a
 * `server`; the CLI without a server (runtime.ts) is a `cli` process for a command that writes, a
 * `reader` for one that only reads. Every policy that follows from it is answered here, once, so the
 * composition root (context.ts) only wires (docs/decisions.md, "Coordination seam").
 */

export type ProcessRole =
  /** Long-lived: executes runs, answers conversations, keeps clocks (schedules, trigger registration). */
  | 'server'
  /** One command without a server that writes: holds the store's writer lock while it runs. */
  | 'cli'
  /** One command that only reads: takes no lock and writes nothing. */
  | 'reader';

export interface RolePolicy {
  /** The writer lock taken on the file store (`svc.lock`), with who holds it; false for none (read-only). */
  storeLock: 'server' | 'cli' | false;
  /** Saves what it discovers (the trigger registry); a reader only looks. */
  writes: boolean;
  /**
   * Executes runs and answers conversations, starting with what a stopped process left unfinished.
   * On a shared database only servers do: a CLI process there must not take other servers' runs for
   * interrupted ones; the runs it starts wait `pending` for a server (docs/scaling.md).
   */
  executes: boolean;
  /** Executes the runs a stopped process left `pending`; the CLI leaves them for the next server. */
  requeuesPending: boolean;
  /** Takes part in the leases, claims and answering of servers sharing a database. */
  takesPartInLeases: boolean;
  /**
   * Keeps clocks: fires schedules, and registers the webhook triggers of its directory and
   * workspaces at start, again periodically and as a workspace is registered. A CLI process is too
   * short-lived to keep a clock, and its directory is no server's.
   */
  keepsClocks: boolean;
}

export function rolePolicy(role: ProcessRole, options: { sharedDatabase: boolean }): RolePolicy {
  const server = role === 'server';
  return {
    storeLock: role === 'reader' ? false : role,
    writes: role !== 'reader',
    executes: server || (role === 'cli' && !options.sharedDatabase),
    requeuesPending: server,
    takesPartInLeases: server,
    keepsClocks: server,
  };
}
