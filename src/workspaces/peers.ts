/**
 * What one server tells the others sharing its database about workspaces (docs/scaling.md): the
 * worktrees and clones svc made live in each server's own SVC_HOME, so a deletion or a clean-up
 * received by one server is announced, and every server removes what its own home holds. A hint
 * only: a server that is down when it is sent keeps those files until a later clean-up reaches it.
 */

/** What was removed or is to be cleaned up, as told to the other servers. */
export type WorkspaceChange =
  | { kind: 'run_deleted'; runId: string }
  /** A `merged` rule names its age `endedBefore` (cleanup.ts, cleanupRuleToChange). */
  | { kind: 'cleanup'; before?: string; endedBefore?: string; merged?: boolean; force?: boolean; workspaceId?: string }
  | { kind: 'workspace_deleted'; workspaceId: string; source: 'clone' | 'path'; path: string };

export interface WorkspacePeers {
  /** This home's id (store/home-id.ts): an environment made here carries it; others' are theirs to remove. */
  readonly homeId: string;
  /** Tells every other server. */
  announce(change: WorkspaceChange): Promise<void>;
}

const CHANNEL = 'svc_workspace_changes';

/** Sending is one statement through the pool, so a CLI process on the database announces too; only a server listens. */
export interface WorkspaceChannel {
  notify(channel: string, payload: string): Promise<unknown>;
  listen?(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Peers over LISTEN/NOTIFY; `sender` tells this process's own announcements apart from the others'. */
export function notifyingPeers(channel: WorkspaceChannel, homeId: string, sender: string) {
  const peers: WorkspacePeers = {
    homeId,
    announce: async (change) => void (await channel.notify(CHANNEL, JSON.stringify({ sender, change }))),
  };
  /** Calls `handler` with every other process's announcement; resolves to the function that stops it. */
  const listen = async (handler: (change: WorkspaceChange) => void) =>
    channel.listen?.(CHANNEL, (payload) => {
      const { sender: from, change } = JSON.parse(payload) as { sender: string; change: WorkspaceChange };
      if (from !== sender) handler(change);
    });
  return { peers, listen };
}
