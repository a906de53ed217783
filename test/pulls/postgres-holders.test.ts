// One server follows each pull request on a shared database (docs/decisions.md, "Pull request
// reactions"): of servers asking to hold a run's pull request at once, one does; it is taken over
// only once its holder's lease ran out; a release lets the next one take it at once.
import { afterAll, describe, expect, it } from 'vitest';
import { postgresHolding } from '../../src/coordination/postgres-holders.js';
import { silentLogger } from '../../src/shared/logger.js';
import { openPostgres, type PostgresDatabase } from '../../src/store/postgres/index.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const opened: PostgresDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

describe('pull_follow_holders', () => {
  it('one of several servers holds a run, until its lease runs out or it lets go', async () => {
    const db = await openPostgres({ url: await postgres.createDatabase(), logger: silentLogger });
    opened.push(db);
    // Three live servers and one whose lease ran out.
    for (const [id, lease] of [
      ['srv_a', '1 hour'],
      ['srv_b', '1 hour'],
      ['srv_c', '1 hour'],
      ['srv_dead', '-1 hour'],
    ]) {
      await db.query('INSERT INTO svc_servers (id, lease_until) VALUES ($1, now() + $2::interval)', [id, lease]);
    }
    const holding = (id: string) => postgresHolding(db, id, 'pull_follow_holders', 'run_id');
    const [a, b, c] = [holding('srv_a'), holding('srv_b'), holding('srv_c')];
    const held = await Promise.all([a.hold('run_1'), b.hold('run_1'), c.hold('run_1')]);
    expect(held.filter(Boolean)).toHaveLength(1);
    const holder = [a, b, c][held.indexOf(true)]!;
    const others = [a, b, c].filter((h) => h !== holder);
    // Held again by its holder, never by another while its lease holds.
    expect(await holder.hold('run_1')).toBe(true);
    expect(await others[0]!.hold('run_1')).toBe(false);
    await holder.release('run_1');
    expect(await others[0]!.hold('run_1')).toBe(true);
    // A dead server's hold is taken over.
    await db.query("INSERT INTO pull_follow_holders (run_id, server_id) VALUES ('run_3', 'srv_dead')");
    expect(await a.hold('run_3')).toBe(true);
    expect(await b.hold('run_3')).toBe(false);
  });
});
