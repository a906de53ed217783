/**
 * Which home a worktree or clone is in, on a database shared by several servers (docs/scaling.md):
 * the worktrees and clones svc made live in each server's own SVC_HOME, so a deletion or a clean-up
 * received by one server is announced (NOTIFY), and every server removes what its own home holds. A
 * hint only: a server that is down when it is sent keeps those files until a later clean-up reaches it.
 */

import type { HomeCoordination, WorkspaceChange } from './types.js';

const CHANNEL = 'svc_workspace_changes';

/** Sending is one statement through the pool, so a CLI process on the database announces too; only a server listens. */
export interface WorkspaceChannel {
  notify(channel: string, payload: string): Promise<unknown>;
  listen?(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Homes over LISTEN/NOTIFY; `sender` tells this process's own announcements apart from the others'. */
export function notifyingHomes(channel: WorkspaceChannel, homeId: string, sender: string): HomeCoordination {
  return {
    homeId,
    // An environment made before homes were recorded has none: it is taken as this home's, as before.
    isHere: (home) => home === undefined || home === homeId,
    announce: async (change) => void (await channel.notify(CHANNEL, JSON.stringify({ sender, change }))),
    async listen(handler) {
      await channel.listen?.(CHANNEL, (payload) => {
        const { sender: from, change } = JSON.parse(payload) as { sender: string; change: WorkspaceChange };
        if (from !== sender) handler(change);
      });
    },
  };
}
