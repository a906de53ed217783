/**
 * What the run engine asks of conversations (its `RunConversations` port): the workspace of the
 * conversation a run starts from, and a run's worker conversation. Given to the engine as it is.
 */

import type { RunConversations } from '../runs/index.js';
import { newId } from '../shared/ids.js';
import { newConversationRecord } from './records.js';
import type { ConversationRepositories } from './repository.js';

export class EngineConversations implements RunConversations {
  constructor(private readonly repositories: Pick<ConversationRepositories, 'conversations'>) {}

  async workspaceOf(conversationId: string): Promise<string | null> {
    return (await this.repositories.conversations.get(conversationId))?.workspace_id ?? null;
  }

  /** Through the repository, so the worker conversation is kept where every other one is. */
  async createWorker(run: { id: string; workflow: string; workspaceId: string | null }): Promise<string> {
    const record = newConversationRecord({
      platform_conversation_id: newId('wkr'),
      workspace_id: run.workspaceId,
      title: `${run.workflow} run ${run.id}`,
      run_id: run.id,
    });
    // Not fsynced: the run's record, written durably next, holds all a run needs of it (its
    // platformId); a power loss may lose this label, never the run (docs/decisions.md, "Fewer writes between two nodes").
    await this.repositories.conversations.insert(record, { sync: false });
    return record.platform_conversation_id;
  }
}
