/**
 * Which server answers a conversation, when several share one database (docs/scaling.md): the
 * messages of a conversation are answered one at a time, in order, so one server at a time holds
 * a conversation and answers its pending messages, whichever server accepted them. The holder is
 * recorded in the database and changes only by compare-and-set; a server that dies (its run lease
 * expires, engine/postgres-run-claims.ts) has its conversations taken over by another, which
 * answers what was pending as a restarted single server does. The file store has none of this: one
 * server per SVC_HOME answers everything.
 */

/** A conversation taken over from a server that is gone, with the messages pending at that moment. */
export interface TakenConversation {
  id: string;
  pending: string[];
}

export interface AnsweringClaims {
  /** This server's id, recorded on every conversation it answers. */
  readonly serverId: string;
  /**
   * Takes over what gone servers held, and — a restart — conversations with pending messages that
   * no server holds (left by a stopped server of an older svc, a CLI process, a copied store);
   * from then on `taken` hears of the conversations each lease heartbeat takes over.
   */
  start(taken: (conversations: TakenConversation[]) => void): Promise<void>;
  /** Holds the conversation unless another server does; resolves to whether this server holds it. */
  claim(conversationId: string): Promise<boolean>;
  /** Whether this server still holds it (not when it missed its lease and another took over). */
  holds(conversationId: string): Promise<boolean>;
  /** Lets it go when nothing of it is pending; false when a message is (this server answers it) or another server holds it. */
  release(conversationId: string): Promise<boolean>;
}
