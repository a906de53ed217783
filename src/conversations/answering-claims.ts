/**
 * Which server answers a conversation, when several share one database (docs/scaling.md): the
 * messages of a conversation are answered one at a time, in order, so one server at a time holds
 * a conversation and answers its pending messages, whichever server accepted them. The holder is
 * recorded in the database and changes only by compare-and-set; a server that dies (its run lease
 * expires, engine/postgres-run-claims.ts) has its conversations taken over by another, which
 * answers what was pending as a restarted single server does. A conversation with pending messages
 * that nobody holds is waiting for a server (sent by the CLI's offline mode, which answers nothing):
 * a server takes it and answers it as it would its own send. The file store has none of this: one
 * server per SVC_HOME answers everything.
 */

/** A conversation taken over from a server that is gone, with the messages pending at that moment. */
export interface TakenConversation {
  id: string;
  pending: string[];
}

/** What a server hears of conversations it may now answer (orchestrator.ts acts on them). */
export interface AnsweringEvents {
  /** Taken over from gone servers: their pending messages are answered as a restart answers them (interrupted). */
  taken(conversations: TakenConversation[]): void;
  /** Pending messages nobody holds (a CLI process's sends): answered as sends are, by whichever server claims them first. */
  waiting(conversationIds: string[]): void;
}

export interface AnsweringClaims {
  /** This server's id, recorded on every conversation it answers. */
  readonly serverId: string;
  /**
   * Takes over what gone servers held (`taken`) and offers the conversations waiting for a server
   * (`waiting`); from then on both hear of what each lease heartbeat finds, and `waiting` of each
   * conversation a CLI process announces (docs/scaling.md, The CLI without a server).
   */
  start(events: AnsweringEvents): Promise<void>;
  /** Holds the conversation unless another server does; resolves to whether this server holds it. */
  claim(conversationId: string): Promise<boolean>;
  /** Whether this server still holds it (not when it missed its lease and another took over). */
  holds(conversationId: string): Promise<boolean>;
  /** Lets it go when nothing of it is pending; false when a message is (this server answers it) or another server holds it. */
  release(conversationId: string): Promise<boolean>;
}
