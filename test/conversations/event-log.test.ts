// A conversation's event log on a real store: positions from the bus's clock, published in order,
// chunked files, and replay after any position (across chunks and a reopened store) in order.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openConversationEventLog, type ConversationEvent } from '../../src/conversations/index.js';
import { EVENT_CHUNK } from '../../src/conversations/events.js';
import { EventBus } from '../../src/events/bus.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openFileStore } from '../../src/store/index.js';
import { cleanupAll, tempDir, waitFor } from '../helpers/runs.js';

afterAll(cleanupAll);

describe('the conversation event log', () => {
  it('replays after any position, reading only the chunks it needs, also after a reopen', async () => {
    const home = await tempDir('svc-conv-events-');
    let store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    let bus = new EventBus<ConversationEvent>();
    const published: ConversationEvent[] = [];
    bus.subscribe((event) => published.push(event));
    let events = openConversationEventLog(store, bus);
    const total = EVENT_CHUNK * 2 + 500;
    const emitted = await Promise.all(Array.from({ length: total }, (_, i) => events.emit('conv_x', 'assistant_delta', { messageId: 'm', text: `t${i}` })));
    await store.flush();
    // Published after they are persisted, in position order.
    await waitFor(() => published.length === total);
    expect(published.map((e) => e.pos)).toEqual(emitted.map((e) => e.pos));
    expect(readdirSync(join(home, 'data', 'conversations', 'conv_x', 'events'))).toHaveLength(3);

    const all = await events.replay('conv_x', 0);
    expect(all.map((e) => (e.type === 'assistant_delta' ? e.text : ''))).toEqual(emitted.map((_, i) => `t${i}`));
    const cut = emitted[1800]!.pos;
    expect((await events.replay('conv_x', cut)).map((e) => e.pos)).toEqual(emitted.slice(1801).map((e) => e.pos));
    expect(await events.replay('conv_x', emitted.at(-1)!.pos)).toEqual([]);
    expect(await events.replay('conv_none', 0)).toEqual([]);
    // Reading creates nothing (a read-only store stays untouched).
    expect(existsSync(join(home, 'data', 'conversations', 'conv_none'))).toBe(false);

    await store.close();
    store = await openFileStore({ home, logger: silentLogger, lock: 'cli' });
    bus = new EventBus<ConversationEvent>();
    events = openConversationEventLog(store, bus);
    const later = await events.emit('conv_x', 'assistant_delta', { messageId: 'm', text: 'after reopen' });
    expect(later.pos).toBeGreaterThan(emitted.at(-1)!.pos);
    expect((await events.replay('conv_x', cut)).map((e) => e.pos)).toEqual([...emitted.slice(1801).map((e) => e.pos), later.pos]);
    await store.close();
  });
});
