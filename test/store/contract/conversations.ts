/** The conversation and message repositories' contract (src/conversations/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { ConversationRecord, Message } from '../../../src/conversations/records.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

const conversation = (n: number, fields: Partial<ConversationRecord> = {}): ConversationRecord => ({
  id: `conv_${String(n).padStart(4, '0')}`,
  platform_conversation_id: `chat_${n}`,
  workspace_id: null,
  title: null,
  created_at: at(n),
  updated_at: at(n),
  deleted_at: null,
  run_id: null,
  assistant: null,
  permissions: null,
  agent_session: null,
  pending_message_ids: [],
  ...fields,
});

const text = (content: string, fields: Partial<Omit<Message, 'id' | 'conversation_id'>> = {}): Omit<Message, 'id' | 'conversation_id'> => ({
  role: 'user',
  content,
  created_at: at(0),
  metadata: {},
  ...fields,
});

export function conversationRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('finds a conversation by id or by platform id; lists newest first without the deleted, by workspace, paged', async () => {
    const { conversations } = await stores.current().conversations();
    await conversations.insert(conversation(1, { workspace_id: 'ws_a' }));
    await conversations.insert(conversation(2));
    await conversations.insert(conversation(3, { workspace_id: 'ws_a', deleted_at: at(9) }));
    await conversations.insert(conversation(4, { workspace_id: 'ws_a' }));
    expect(await conversations.get('conv_0002')).toEqual(conversation(2));
    expect(await conversations.get('chat_2')).toEqual(conversation(2));
    expect(await conversations.get('conv_9999')).toBeUndefined();

    const ids = (page: { items: ConversationRecord[] }) => page.items.map((c) => c.id);
    expect(ids(await conversations.list())).toEqual(['conv_0004', 'conv_0002', 'conv_0001']);
    expect((await conversations.list()).total).toBe(3);
    expect(ids(await conversations.list({ includeDeleted: true }))).toEqual(['conv_0004', 'conv_0003', 'conv_0002', 'conv_0001']);
    expect(await conversations.list({ workspaceId: 'ws_a', limit: 1, offset: 1 })).toEqual({ items: [conversation(1, { workspace_id: 'ws_a' })], total: 2 });
    expect(await conversations.list({ workspaceId: 'ws_a', includeDeleted: true, offset: 5 })).toEqual({ items: [], total: 3 });
  });

  it('updates merge and keep the id; pending messages are added and removed in order, with a patch, and survive a reopen', async () => {
    let { conversations } = await stores.current().conversations();
    await conversations.insert(conversation(1));
    await conversations.insert(conversation(2));
    expect(await conversations.update('conv_0001', { title: 'hello', updated_at: at(5) })).toEqual(conversation(1, { title: 'hello', updated_at: at(5) }));
    expect(await conversations.update('conv_9999', { title: 'x' })).toBeUndefined();
    expect(await conversations.addPending('conv_9999', 'msg_1')).toBeUndefined();

    await conversations.addPending('conv_0001', 'msg_1_a');
    await conversations.addPending('conv_0001', 'msg_2_b');
    await conversations.addPending('conv_0001', 'msg_3_c', { updated_at: at(6) });
    expect((await conversations.get('conv_0001'))?.pending_message_ids).toEqual(['msg_1_a', 'msg_2_b', 'msg_3_c']);
    const session = { assistant: 'claude' as const, id: 'sess-1', tokens: null };
    const after = await conversations.removePending('conv_0001', 'msg_2_b', { agent_session: session });
    expect(after).toEqual(conversation(1, { title: 'hello', updated_at: at(6), pending_message_ids: ['msg_1_a', 'msg_3_c'], agent_session: session }));
    expect((await conversations.withPending()).map((c) => c.id)).toEqual(['conv_0001']);

    ({ conversations } = await (await stores.reopen()).conversations());
    expect(await conversations.get('conv_0001')).toEqual(after);
    await conversations.removePending('conv_0001', 'msg_1_a');
    await conversations.removePending('conv_0001', 'msg_3_c');
    expect(await conversations.withPending()).toEqual([]);
    expect((await conversations.get('conv_0001'))?.pending_message_ids).toEqual([]);
  });

  it("keeps a conversation's assistant and permissions across a reopen; a record stored without permissions reads back without them", async () => {
    let { conversations } = await stores.current().conversations();
    await conversations.insert(conversation(1, { assistant: 'codex', permissions: 'edit' }));
    const { permissions: _none, ...older } = conversation(2);
    await conversations.insert(older);
    ({ conversations } = await (await stores.reopen()).conversations());
    expect(await conversations.get('conv_0001')).toEqual(conversation(1, { assistant: 'codex', permissions: 'edit' }));
    expect(await conversations.get('conv_0002')).toEqual(older);
  });

  it('concurrent pending changes of one conversation lose none', async () => {
    const { conversations } = await stores.current().conversations();
    await conversations.insert(conversation(1));
    const ids = Array.from({ length: 20 }, (_, i) => `msg_${i}`);
    await Promise.all(ids.map((id) => conversations.addPending('conv_0001', id)));
    expect([...((await conversations.get('conv_0001'))?.pending_message_ids ?? [])].sort()).toEqual([...ids].sort());
    await Promise.all(ids.slice(0, 15).map((id) => conversations.removePending('conv_0001', id)));
    expect([...((await conversations.get('conv_0001'))?.pending_message_ids ?? [])].sort()).toEqual(ids.slice(15).sort());
  });

  it('messages take places 1, 2, … in call order per conversation, and pages walk back to the first', async () => {
    const { messages } = await stores.current().conversations();
    const sent = await Promise.all(Array.from({ length: 7 }, (_, i) => messages.append('conv_a', text(`m${i + 1}`))));
    expect(sent.map((m) => [m.seq, m.content])).toEqual(Array.from({ length: 7 }, (_, i) => [i + 1, `m${i + 1}`]));
    expect(sent[0]).toMatchObject({ conversation_id: 'conv_a', role: 'user', metadata: {} });
    expect((await messages.append('conv_b', text('other'))).seq).toBe(1);

    const newest = await messages.page('conv_a', { limit: 3 });
    expect(newest?.messages.map((m) => m.content)).toEqual(['m5', 'm6', 'm7']);
    expect(newest?.nextBefore).toBe(sent[4]!.id);
    const middle = await messages.page('conv_a', { limit: 3, before: newest!.nextBefore! });
    expect(middle?.messages.map((m) => m.content)).toEqual(['m2', 'm3', 'm4']);
    const first = await messages.page('conv_a', { limit: 3, before: middle!.nextBefore! });
    expect(first).toEqual({ messages: [sent[0]], nextBefore: null });
    expect(await messages.page('conv_a', { limit: 3, before: 'msg_zz_00000000' })).toBeUndefined();
    const elsewhere = (await messages.page('conv_b', { limit: 1 }))!.messages[0]!;
    expect(await messages.page('conv_a', { limit: 3, before: elsewhere.id })).toBeUndefined();
    expect(await messages.page('conv_empty', { limit: 3 })).toEqual({ messages: [], nextBefore: null });
    expect(await messages.get('conv_a', sent[3]!.id)).toEqual(sent[3]);
    expect(await messages.get('conv_b', sent[3]!.id)).toBeUndefined();
  });

  it("calls on one conversation resolve in call order: concurrent sends (reserve, mark pending, append) are stored and queued in their places' order", async () => {
    const { conversations, messages } = await stores.current().conversations();
    await conversations.insert(conversation(1));
    const resolved: number[] = [];
    // What ConversationService.send does for each message; the orchestrator answers in this order.
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const reserved = await messages.reserve('conv_0001');
        await conversations.addPending('conv_0001', reserved.id, { updated_at: at(i) });
        resolved.push((await messages.append('conv_0001', text(`m${i}`), reserved)).seq);
      }),
    );
    expect(resolved).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await conversations.get('conv_0001'))?.pending_message_ids).toHaveLength(20);
  });

  it('accept takes the next place and marks it pending in one step: concurrent accepts keep places and the pending list in one order', async () => {
    const repositories = await stores.current().conversations();
    await repositories.conversations.insert(conversation(1));
    const accepted = await Promise.all(Array.from({ length: 20 }, (_, i) => repositories.accept('conv_0001', { updated_at: at(i) })));
    const bySeq = [...accepted].sort((a, b) => a.seq - b.seq);
    expect(bySeq.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const record = await repositories.conversations.get('conv_0001');
    expect(record?.pending_message_ids).toEqual(bySeq.map((m) => m.id));
    expect(record?.updated_at).toBe(at(19));
  });

  it('a reserved place is the message appended later; one never written is read past; replies are found; numbering continues after a reopen', async () => {
    let { messages } = await stores.current().conversations();
    const question = await messages.append('conv_a', text('question?'));
    const reserved = await messages.reserve('conv_a');
    const lost = await messages.reserve('conv_a');
    await messages.append('conv_a', text('noise'));
    const answer = await messages.append('conv_a', text('answer', { role: 'assistant', metadata: { replyTo: question.id } }), reserved);
    expect(answer).toMatchObject({ id: reserved.id, seq: reserved.seq, content: 'answer' });
    expect(await messages.replyTo('conv_a', question.id)).toEqual(answer);
    expect(await messages.replyTo('conv_a', answer.id)).toBeUndefined();

    const page = await messages.page('conv_a', { limit: 10 });
    expect(page?.messages.map((m) => m.content)).toEqual(['question?', 'answer', 'noise']);
    expect(page?.messages.some((m) => m.seq === lost.seq)).toBe(false);

    ({ messages } = await (await stores.reopen()).conversations());
    const next = await messages.append('conv_a', text('after restart'));
    expect(next.seq).toBe(5);
    expect((await messages.page('conv_a', { limit: 2 }))?.messages.map((m) => m.content)).toEqual(['noise', 'after restart']);
    expect(await messages.get('conv_a', answer.id)).toEqual(answer);
  });
}
