/**
 * What the engine asks of the other servers sharing its database (docs/scaling.md): which pending
 * runs it may execute, a lease on them kept alive by heartbeat, the runs of servers whose lease
 * expired, and operations on runs another server executes. The file store has none of this: one
 * server per SVC_HOME holds every run it has (engine.ts keeps its own queue then).
 */

/** An outside stop forwarded to the server that executes the run. */
export type ForwardedStop = 'cancel' | 'abandon';

export interface SharedRunEvents {
  /** Pending runs may be claimable (created, approved without a slot, or left by a dead server). */
  pending(): void;
  /** Runs of servers whose lease expired, now held by this one: to be marked interrupted or offered again. */
  orphaned(runIds: string[]): void;
  /** A stop asked of another server for a run this one may execute. */
  stop(runId: string, op: ForwardedStop): void;
}

/** Where a run is, among the servers sharing the database (the run detail; docs/scaling.md). */
export interface RunWhereabouts {
  /** The server that claimed (executes, or executed) the run; null while none holds it. */
  serverId: string | null;
  /** The home holding the run's worktree, when it has one: only servers of that home claim the run. */
  home: { id: string; host: string | null; path: string | null; servers: number } | null;
}

export interface RunClaims {
  /** This server's id, recorded on every run it claims. */
  readonly serverId: string;
  /** This server's home (store/home-id.ts); servers sharing a home share its worktrees. */
  readonly homeId: string;
  /** Registers this server, starts the heartbeat and listens; `events` are called from then on. */
  start(events: SharedRunEvents): Promise<void>;
  /**
   * Claims up to `limit` pending runs no server holds, oldest first (`FOR UPDATE SKIP LOCKED`),
   * leaving those whose worktree is in another home; resolves to their ids.
   */
  claim(limit: number): Promise<string[]>;
  /** Claims this pending run if no other server holds it and its worktree (if any) is in this home; resolves to whether this server now does. */
  claimRun(runId: string): Promise<boolean>;
  /** Tells every server that pending runs may be claimable. */
  announcePending(): Promise<void>;
  /** The server that holds the run (executes it, or claimed it), if any. */
  holder(runId: string): Promise<string | null>;
  /** The run's worktree is in this server's home now: from here on only servers of this home claim it. */
  bindHome(runId: string): Promise<void>;
  /** Whether a server of another home must continue the run (its worktree is there). */
  boundElsewhere(runId: string): Promise<boolean>;
  /** Which server holds the run, and which home its worktree is in with how many live servers. */
  whereabouts(runId: string): Promise<RunWhereabouts>;
  /** Asks the server that holds the run to stop it. */
  forwardStop(runId: string, op: ForwardedStop): Promise<void>;
  /** Lets any server claim the run again (one this server made pending without a free slot, or took over from a dead server). */
  unclaim(runId: string): Promise<void>;
  /** How many servers are alive, and how many runs each executes (`/api/health`). */
  share(): Promise<{ servers: number; running: Record<string, number> }>;
  /** Stops the heartbeat and removes this server's registration. */
  close(): Promise<void>;
}
