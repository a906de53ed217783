/**
 * The coordination seam (docs/decisions.md, "Coordination seam"): everything svc's core asks about
 * the other processes that may share its store, as one interface. `RunEngine`, the `Orchestrator`
 * and `WorkspaceService` each have one code path written against it; which processes exist is the
 * implementation's business:
 *
 * - `localCoordination` (local.ts): one process owns its home's store and everything in it. An
 *   offered run waits in its queue here, every claim succeeds, a stop is never anyone else's, every
 *   run and worktree is in this home, every conversation is answered here.
 * - `postgresCoordination` (postgres.ts): several servers share one PostgreSQL database
 *   (docs/scaling.md). Runs are claimed with `FOR UPDATE SKIP LOCKED` under a lease a heartbeat
 *   renews, a dead server's runs and conversations are taken over, and hints (pending runs,
 *   forwarded stops, waiting conversations, workspace changes) go over LISTEN/NOTIFY.
 *
 * It speaks in ids only, so the domain modules above it (engine, conversations, workspaces) can all
 * use it, and it knows none of them.
 *
 * Timed wake-ups (a due scheduled resume, issue 23) need no part of their own: every server may
 * fire a due one, since the lifecycle transition it makes is compare-and-set, so one wins; the run
 * it makes pending is then `offer`ed here like any other, and the coordination decides which server
 * executes it (docs/decisions.md, "Coordination seam").
 */

/** An outside stop forwarded to the process that executes the run. */
export type ForwardedStop = 'cancel' | 'abandon';

/** Where a run is, among the servers sharing the database (the run detail; docs/scaling.md). */
export interface RunLocation {
  /** The server that claimed (executes, or executed) the run; null while none holds it. */
  serverId: string | null;
  /** The home holding the run's worktree, when it has one: only servers of that home claim the run. */
  home: { id: string; host: string | null; path: string | null; servers: number } | null;
}

/** What a process hears about runs once it takes part (`RunCoordination.start`); the engine acts on it. */
export interface RunAnnouncements {
  /** Pending runs may be claimable (created, approved without a slot, or left by a dead server). */
  pending(): void;
  /** Runs whose process is gone, now this one's: a running one was interrupted, a pending one is offered again. */
  orphaned(runIds: string[]): Promise<void>;
  /** A stop asked by another process for a run this one may execute. */
  stop(runId: string, op: ForwardedStop): void;
  /** The runs this home's previous process left unfinished (the store's own view; only one process per home reads it). */
  leftBehind(): Promise<string[]>;
}

export interface RunCoordination {
  /**
   * Starts taking part in executing runs; `announcements` are called from then on. Locally, what
   * the previous process left behind is this one's at once; on a shared database, the server
   * registers its lease and takes over what dead servers held as its heartbeat finds them.
   */
  start(announcements: RunAnnouncements): Promise<void>;
  /** A pending run nobody executes yet is offered to whoever may execute it; `front`: before those waiting (an approved run). */
  offer(runId: string, options?: { front?: boolean }): Promise<void>;
  /** Claims up to `limit` offered runs, oldest first (`front` ones first locally); resolves to their ids. */
  claim(limit: number): Promise<string[]>;
  /** Claims this pending run if no other process holds it; resolves to whether this one now does. */
  claimRun(runId: string): Promise<boolean>;
  /** Lets any process claim the run again (one claimed but not started, or taken over from a dead process). */
  unclaim(runId: string): Promise<void>;
  /** A stopped pending run is no longer on offer. */
  withdraw(runId: string): void;
  /** Offered runs waiting in this process (none where they wait in a shared database). */
  readonly waiting: number;
  /** Whether a run this process does not execute may be executing in another one (a stop is then forwarded there). */
  executesElsewhere(runId: string): boolean;
  /** Asks the process that holds the run to stop it. */
  forwardStop(runId: string, op: ForwardedStop): Promise<void>;
  /** The run's worktree is in this process's home now: only processes of this home continue it. */
  bindHome(runId: string): Promise<void>;
  /** Whether a process of another home must continue the run (its worktree is there). */
  boundElsewhere(runId: string): Promise<boolean>;
  /** Which server holds the run and which home its worktree is in; undefined when one process holds every run. */
  location(runId: string): Promise<RunLocation> | undefined;
  /** The servers alive and the runs each executes (`/api/health`); undefined when one process holds every run. */
  share(): Promise<{ servers: number; running: Record<string, number> }> | undefined;
  /** Stops taking part: claimed runs not started are let go, the lease ends. */
  close(): Promise<void>;
}

/** A conversation taken over from a process that is gone, with the messages pending at that moment. */
export interface TakenConversation {
  id: string;
  pending: string[];
}

/** What a process hears of conversations it may now answer (the orchestrator acts on it). */
export interface AnsweringAnnouncements {
  /** Taken over from gone processes: their pending messages are answered as a restart answers them (interrupted). */
  taken(conversations: TakenConversation[]): void;
  /** Pending messages nobody holds (a CLI process's sends): answered as sends are, by whichever server claims them first. */
  waiting(conversationIds: string[]): void;
  /** The conversations with messages this home's previous process left pending (the store's own view). */
  leftBehind(): Promise<TakenConversation[]>;
}

/**
 * Who answers a conversation: its messages are answered one at a time, in order, so one process
 * at a time holds a conversation and answers its pending messages, whichever process accepted them.
 */
export interface AnsweringCoordination {
  /** Takes over what gone processes held and hears, from then on, of conversations to answer. */
  start(announcements: AnsweringAnnouncements): Promise<void>;
  /** A message this process accepted waits to be answered: whoever answers the conversation is told. */
  accepted(conversationId: string): Promise<void>;
  /** Holds the conversation unless another process does; resolves to whether this one holds it. */
  claim(conversationId: string): Promise<boolean>;
  /** Whether this process still holds it (not when it missed its lease and another took over). */
  holds(conversationId: string): Promise<boolean>;
  /** Lets it go when nothing of it is pending; false when a message is (this process answers it) or another holds it. */
  release(conversationId: string): Promise<boolean>;
}

/** What was removed or is to be cleaned up, as told to the other homes (docs/scaling.md). */
export type WorkspaceChange =
  | { kind: 'run_deleted'; runId: string }
  /** A `merged` rule names its age `endedBefore` (workspaces/cleanup.ts, cleanupRuleToChange). */
  | { kind: 'cleanup'; before?: string; endedBefore?: string; merged?: boolean; force?: boolean; workspaceId?: string }
  | { kind: 'workspace_deleted'; workspaceId: string; source: 'clone' | 'path'; path: string };

/**
 * Which home a worktree or clone is in: the files svc makes live in each process's own SVC_HOME,
 * so what one process deletes or cleans up is announced, and each home removes its own part.
 */
export interface HomeCoordination {
  /** This home's id (store/home-id.ts), recorded on what is made here; undefined when one home holds everything. */
  readonly homeId: string | undefined;
  /** Whether what was recorded as made in `homeId` is in this home (also what was made before homes were recorded). */
  isHere(homeId: string | undefined): boolean;
  /** Tells every other home; a hint only (a server down then keeps its files until a later clean-up reaches it). */
  announce(change: WorkspaceChange): Promise<void>;
  /** Hears the other processes' announcements, from now on. */
  listen(handler: (change: WorkspaceChange) => void): Promise<void>;
}

/**
 * Which process processes a workspace's landing queue (docs/decisions.md, "Landing queue"): one at
 * a time, so its entries land one by one, in order. Locally the one process does; on a shared
 * database the server that holds it, while its lease holds.
 */
export interface QueueCoordination {
  /** Holds the workspace's queue unless another live process does; resolves to whether this one holds it now. */
  hold(workspaceId: string): Promise<boolean>;
  /** Lets it go: nothing is left to land, or this process stops. */
  release(workspaceId: string): Promise<void>;
}

/**
 * Which process follows a run's pull request (docs/decisions.md, "Pull request reactions"): one at
 * a time, so a failed check or a review starts one follow-on run. Locally the one process does; on a
 * shared database the server that holds it, while its lease holds.
 */
export interface PullCoordination {
  /** Holds the run's pull request unless another live process does; resolves to whether this one holds it now. */
  hold(runId: string): Promise<boolean>;
  /** Lets it go: it is no longer followed, or this process stops. */
  release(runId: string): Promise<void>;
}

export interface Coordination {
  /** This server's id among those sharing the database; undefined when one process owns everything. */
  readonly serverId: string | undefined;
  readonly runs: RunCoordination;
  readonly queues: QueueCoordination;
  readonly pulls: PullCoordination;
  readonly answering: AnsweringCoordination;
  readonly homes: HomeCoordination;
  /**
   * Whether a run on a workspace is placed (its worktree made) by the process that executes it, at
   * launch, because that may be another home than the one that starts it (docs/contract.md, "Workspaces"); else at start, so that its cwd is on record from the start.
   */
  readonly placesRunsAtLaunch: boolean;
  /**
   * Whether another process may take over a run this one executes (it missed its lease: docs/scaling.md).
   * A run's record writes are then its fence: a scheduling round starts its processes only once the
   * store took the round's write, which it refuses for a run taken over (runs/executor/executor.ts).
   */
  readonly runsMayBeTakenOver: boolean;
}
