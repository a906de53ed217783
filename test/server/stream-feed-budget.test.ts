// A reader's budget (events/stream-feed.ts, docs/decisions.md, "Streams"): events published in one
// go are judged once the writer has had a turn to hand them to the socket, so a reader that keeps
// up is not cut for the size of one burst, and one that does not read is cut as before.
import { expect, it } from 'vitest';
import type { SvcStreamEvent } from '../../src/conversations/index.js';
import { EventBus } from '../../src/events/bus.js';
import { openFeed } from '../../src/events/stream-feed.js';
import type { Logger } from '../../src/shared/logger.js';

const logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const LIMIT = 10_000;
const EVENT_BYTES = 4_000;

/** A feed on `bus` whose writer queues what it is given until `drain` hands it on. */
function reader(bus: EventBus<SvcStreamEvent>) {
  let queued = 0;
  const cut: number[] = [];
  const feed = openFeed(
    { bus, logger },
    {
      source: { matches: () => true, replay: async () => [] },
      after: undefined,
      write: () => {
        queued += EVENT_BYTES;
      },
      budget: { limit: LIMIT, sizeOf: () => EVENT_BYTES, waiting: () => queued, onOverflow: (bytes) => cut.push(bytes) },
    },
  );
  return { feed, cut, drain: () => (queued = 0) };
}

const burst = (bus: EventBus<SvcStreamEvent>, count: number) => {
  for (let i = 0; i < count; i++) bus.publish({ type: 'node_output', runId: 'run_x', pos: Date.now() * 1000 + i } as unknown as SvcStreamEvent);
};
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

it('keeps a reader that takes a burst larger than its budget on its next turn', async () => {
  const bus = new EventBus<SvcStreamEvent>();
  const keeping = reader(bus);
  await keeping.feed.start();
  burst(bus, 5); // 20 000 bytes waiting at once, twice the budget
  keeping.drain(); // what the socket takes before the next turn
  await nextTurn();
  await nextTurn();
  expect(keeping.cut).toEqual([]);
  keeping.feed.close();
});

it('cuts a reader that leaves the burst waiting, once, with what it left', async () => {
  const bus = new EventBus<SvcStreamEvent>();
  const stuck = reader(bus);
  await stuck.feed.start();
  burst(bus, 5);
  expect(stuck.cut).toEqual([]); // judged on the writer's next turn, not mid-burst
  await nextTurn();
  expect(stuck.cut).toEqual([5 * EVENT_BYTES]);
  burst(bus, 5); // nothing more reaches a reader that was cut
  await nextTurn();
  expect(stuck.cut).toHaveLength(1);
});
