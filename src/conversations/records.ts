import { newId } from '../shared/ids.js';
import type { Store } from '../store/index.js';

/** A conversation (docs/decisions.md, Conversations). Worker conversations belong to one workflow run each. */
export interface ConversationRecord {
  id: string;
  platform_conversation_id: string;
  workspace_id: string | null;
  title: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Set on a run's worker conversation. */
  run_id?: string | null;
}

/** Conversations grow with every run, so each lives in its own record file. */
export const openConversations = (store: Store) => store.collection<ConversationRecord>('conversations', 'per-record');

export async function createWorkerConversation(store: Store, runId: string, workflow: string, workspaceId: string | null): Promise<ConversationRecord> {
  const at = new Date().toISOString();
  const record: ConversationRecord = {
    id: newId('conv'),
    platform_conversation_id: newId('wkr'),
    workspace_id: workspaceId,
    title: `${workflow} run ${runId}`,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    run_id: runId,
  };
  await (await openConversations(store)).put(record);
  return record;
}
