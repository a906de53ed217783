import type { Logger } from '../../shared/logger.js';
import type { PostgresDatabase } from './database.js';
import type { Notifier } from './notifier.js';

const CHANNEL = 'svc_events';
/** How soon a fetch is tried again while an event known to exist is still held back (an older transaction is open). */
const HELD_BACK_RETRY_MS = 20;
/** A fetch now and then even without a hint: a notification sent while the listener reconnected is lost. */
const SAFETY_POLL_MS = 1000;

export interface EventFeedOptions<E extends { pos: number }> {
  db: PostgresDatabase;
  notifier: Notifier;
  logger: Logger;
  /** Called with every stored event (every server's), in position order, each once. */
  publish(event: E, own: boolean): void;
}

export interface EventFeed {
  /** This process stored an event at `position`: fetch it (and tell the other servers). */
  stored(position: number): void;
  close(): Promise<void>;
}

/**
 * Every server's stream events, in one order (docs/scaling.md): run events and conversation events
 * are rows positioned by one sequence; this feed reads them after the last position it published,
 * holding back those of transactions older than one still open (so a late commit is never
 * skipped), and publishes them to this server's streams. A server that stores an event fetches at
 * once and NOTIFYs the others, which fetch too; a periodic fetch covers a lost notification.
 */
export async function openEventFeed<E extends { pos: number }>(options: EventFeedOptions<E>): Promise<EventFeed> {
  const { db, notifier, logger } = options;
  const start = await db.query<{ p: string }>(
    'SELECT greatest((SELECT coalesce(max(position), 0) FROM run_events), (SELECT coalesce(max(position), 0) FROM conversation_events)) AS p',
  );
  let cursor = Number(start.rows[0]!.p);
  /** The highest position known to exist (stored here, or announced by another server). */
  let known = cursor;
  const own = new Set<number>();
  let fetching: Promise<void> | undefined;
  let again = false;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  /** Fetches in a row that found nothing although `known` is ahead (its event may have been deleted since). */
  let fruitless = 0;

  const fetchOnce = async (): Promise<number> => {
    const { rows } = await db.query<{ record: E }>(
      `SELECT record FROM (
         SELECT position, record FROM run_events WHERE position > $1 AND tx < pg_snapshot_xmin(pg_current_snapshot())
         UNION ALL
         SELECT position, record FROM conversation_events WHERE position > $1 AND tx < pg_snapshot_xmin(pg_current_snapshot())
       ) AS e ORDER BY position LIMIT 1000`,
      [cursor],
    );
    for (const { record } of rows) {
      cursor = record.pos;
      const mine = own.delete(record.pos);
      options.publish(record, mine);
    }
    return rows.length;
  };

  const fetch = (): void => {
    if (closed) return;
    if (fetching) {
      again = true;
      return;
    }
    fetching = (async () => {
      try {
        do {
          again = false;
          let found: number;
          do {
            found = await fetchOnce();
            fruitless = found > 0 ? 0 : fruitless + 1;
          } while (found === 1000);
        } while (again);
      } catch (error) {
        logger.warn('stream.feed_failed', { error: (error as Error).message });
      } finally {
        fetching = undefined;
        if (known > cursor && fruitless < 50 && !closed && !retry) {
          retry = setTimeout(() => {
            retry = undefined;
            fetch();
          }, HELD_BACK_RETRY_MS);
        }
      }
    })();
  };

  let announcing = false;
  let announceAgain = false;
  const announce = async () => {
    if (announcing) {
      announceAgain = true;
      return;
    }
    announcing = true;
    try {
      do {
        announceAgain = false;
        await notifier.notify(CHANNEL, String(known));
      } while (announceAgain);
    } catch (error) {
      logger.warn('stream.announce_failed', { error: (error as Error).message });
    } finally {
      announcing = false;
    }
  };

  const unlisten = await notifier.listen(CHANNEL, (payload) => {
    const position = Number(payload);
    if (Number.isFinite(position) && position > known) known = position;
    fetch();
  });
  notifier.onReconnect(fetch);
  const poll = setInterval(fetch, SAFETY_POLL_MS);
  poll.unref();

  return {
    stored(position) {
      own.add(position);
      if (position > known) known = position;
      fetch();
      void announce();
    },
    async close() {
      closed = true;
      clearInterval(poll);
      if (retry) clearTimeout(retry);
      await fetching;
      await unlisten().catch(() => {});
    },
  };
}
