import { hostname } from 'node:os';
import { TRIGGERS_COLLECTION, type TriggerRecord, type DedupeRecord, DEDUPE_COLLECTION, DELIVERY_HISTORY, openWebhookRepositories } from '../webhooks/index.js';
import { openAssistantsConfigRepository } from '../config/index.js';
import { openConversationEventLog, openConversationRepositories, type SvcStreamEvent, type StoredMessage } from '../conversations/index.js';
import { openFileRunRepository, summarizeRun, type RunRecord } from '../runs/index.js';
import { EventBus } from '../events/index.js';
import { DomainError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { homeIdentity, openFileStore } from '../store/index.js';
import { asJson, openPostgres, type Queryable } from '../store/postgres/index.js';
import { openWorkspaceRepositories } from '../workspaces/index.js';
import { SCHEDULE_STATE_COLLECTION, type ScheduleState } from '../schedules/index.js';
import { QUEUE_COLLECTION, type QueueEntry } from '../queue/index.js';

/** What was copied, per kind; each equals the rows the database then holds (checked). */
export interface MigrationCounts {
  workspaces: number;
  workspaceEnvironments: number;
  workspaceEnvValues: number;
  conversations: number;
  messages: number;
  conversationEvents: number;
  runs: number;
  runEvents: number;
  /** The assistant configuration: 1 when one was saved, else 0. */
  config: number;
  webhookTriggers: number;
  webhookDedupe: number;
  webhookDeliveries: number;
  scheduleStates: number;
  /** Entries of the landing queues. */
  queueEntries: number;
}

const TABLES: Record<keyof MigrationCounts, string> = {
  workspaces: 'workspaces',
  workspaceEnvironments: 'workspace_environments',
  workspaceEnvValues: 'workspace_env',
  conversations: 'conversations',
  messages: 'messages',
  conversationEvents: 'conversation_events',
  runs: 'runs',
  runEvents: 'run_events',
  config: 'config',
  webhookTriggers: 'webhook_triggers',
  webhookDedupe: 'webhook_dedupe',
  webhookDeliveries: 'webhook_deliveries',
  scheduleStates: 'schedule_state',
  queueEntries: 'landing_queue',
};

const PAGE = 500;
/** The server that held what the file store left running or pending: gone, so a server on the database takes it over. */
const GONE_SERVER = 'srv_migrated';

/** Every item of a paged list. */
async function all<T>(list: (offset: number) => Promise<{ items: T[]; total: number }>): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await list(items.length);
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
}

/**
 * `svc migrate-store --to postgres://…` (docs/scaling.md): copies a file store — runs and their
 * events and summaries, conversations, messages and their events, workspaces with their
 * environments and env values, the assistant configuration, the webhook trigger registry, webhook
 * dedupe records and delivery history, schedule state — into an empty database, in one transaction, then checks every
 * table's count against what was read, and sets the event position sequence past the highest
 * copied position so new events come after them. The file store is opened under the CLI's writer
 * lock (no server may be using it) and is left as it was.
 */
export async function migrateStore(options: { home: string; url: string; logger: Logger }): Promise<MigrationCounts> {
  const store = await openFileStore({ home: options.home, logger: options.logger, lock: 'cli' });
  try {
    const db = await openPostgres({ url: options.url, logger: options.logger });
    try {
      return await db.transaction(async (client) => {
        await assertEmpty(client);
        const counts = await copy(store, client, await homeIdentity(options.home), options.home);
        for (const [kind, table] of Object.entries(TABLES) as Array<[keyof MigrationCounts, string]>) {
          const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
          if (rows[0]!.n !== counts[kind]) throw new Error(`copied ${counts[kind]} ${kind} but the database holds ${rows[0]!.n}; nothing was kept`);
        }
        return counts;
      });
    } finally {
      await db.close();
    }
  } finally {
    await store.close();
  }
}

async function assertEmpty(client: Queryable): Promise<void> {
  for (const table of Object.values(TABLES)) {
    const { rows } = await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${table}) AS any`);
    if (rows[0]!.any) throw new DomainError('database_not_empty', `The database already holds ${table}: migrate-store copies into an empty database only.`);
  }
}

/**
 * `homeId`: the file store's SVC_HOME (store/home-id.ts). Its worktrees are there, so its
 * environments and the runs that have one are recorded as that home's: only servers of that home
 * continue those runs (docs/scaling.md), as for a run started on the database.
 */
async function copy(store: Awaited<ReturnType<typeof openFileStore>>, client: Queryable, homeId: string, home: string): Promise<MigrationCounts> {
  const counts: MigrationCounts = {
    workspaces: 0,
    workspaceEnvironments: 0,
    workspaceEnvValues: 0,
    conversations: 0,
    messages: 0,
    conversationEvents: 0,
    runs: 0,
    runEvents: 0,
    config: 0,
    webhookTriggers: 0,
    webhookDedupe: 0,
    webhookDeliveries: 0,
    scheduleStates: 0,
    queueEntries: 0,
  };
  let highest = 0;

  const workspaces = await openWorkspaceRepositories(store);
  for (const workspace of await all((offset) => workspaces.workspaces.list({ limit: PAGE, offset }))) {
    await client.query('INSERT INTO workspaces (id, record) VALUES ($1, $2)', [workspace.id, asJson(workspace)]);
    counts.workspaces++;
    const values = Object.entries(await workspaces.secrets.get(workspace.id));
    for (const [name, value] of values)
      await client.query('INSERT INTO workspace_env (workspace_id, name, value) VALUES ($1, $2, $3)', [workspace.id, name, value]);
    counts.workspaceEnvValues += values.length;
  }
  const inThisHome = new Set<string>();
  for (const environment of await all((offset) => workspaces.environments.list({ limit: PAGE, offset }))) {
    await client.query('INSERT INTO workspace_environments (id, record) VALUES ($1, $2)', [environment.id, asJson({ ...environment, home_id: homeId })]);
    inThisHome.add(environment.run_id);
    counts.workspaceEnvironments++;
  }
  // What a waiting run names as its home (a server of it may never have run on the database).
  await client.query(
    `INSERT INTO svc_homes (id, host, path) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, path = EXCLUDED.path, seen_at = now()`,
    [homeId, hostname(), home],
  );

  const conversations = await openConversationRepositories(store);
  const conversationEvents = openConversationEventLog(store, new EventBus<SvcStreamEvent>());
  for (const conversation of await all((offset) => conversations.conversations.list({ includeDeleted: true, limit: PAGE, offset }))) {
    // A message left pending in the file store was interrupted (its server stopped): held by a server
    // already gone, it is answered as interrupted by the first server on the database, as a restarted
    // server would answer it — not as a message waiting for a server (docs/scaling.md).
    const interrupted = (conversation.pending_message_ids ?? []).length > 0;
    await client.query('INSERT INTO conversations (id, record, answering_server) VALUES ($1, $2, $3)', [
      conversation.id,
      asJson(conversation),
      interrupted ? GONE_SERVER : null,
    ]);
    counts.conversations++;
    const messages: StoredMessage[] = [];
    for (let before: string | undefined; ;) {
      const page = await conversations.messages.page(conversation.id, { limit: PAGE, before });
      if (!page) break;
      messages.push(...page.messages);
      if (page.nextBefore === null) break;
      before = page.nextBefore;
    }
    for (const message of messages) {
      await client.query('INSERT INTO messages (conversation_id, seq, id, record) VALUES ($1, $2, $3, $4)', [
        conversation.id,
        message.seq,
        message.id,
        asJson(message),
      ]);
    }
    counts.messages += messages.length;
    const last = messages.reduce((max, message) => Math.max(max, message.seq), 0);
    if (last > 0) await client.query('INSERT INTO message_places (conversation_id, last_seq) VALUES ($1, $2)', [conversation.id, last]);
    for (const event of await conversationEvents.replay(conversation.id, 0)) {
      await client.query('INSERT INTO conversation_events (position, conversation_id, record) VALUES ($1, $2, $3)', [
        event.pos,
        conversation.id,
        asJson(event),
      ]);
      highest = Math.max(highest, event.pos);
      counts.conversationEvents++;
    }
  }

  // Read-only here: positions are the events' own.
  const runs = await openFileRunRepository(store, () => 0);
  const records: RunRecord[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await runs.list({ limit: PAGE, offset });
    records.push(...page.runs);
    if (page.runs.length === 0 || records.length >= page.total) break;
  }
  // A run left `running` by a crash belongs to a server already gone: its lease has expired, so the
  // first server to start on the database marks it interrupted (resumable), as a restarted server would.
  if (records.some((run) => run.status === 'running'))
    await client.query("INSERT INTO svc_servers (id, lease_until) VALUES ($1, now() - interval '1 second')", [GONE_SERVER]);
  for (const run of records) {
    await client.query('INSERT INTO runs (id, record, server_id, home_id) VALUES ($1, $2, $3, $4)', [
      run.id,
      asJson(run),
      run.status === 'running' ? GONE_SERVER : null,
      inThisHome.has(run.id) ? homeId : null,
    ]);
    counts.runs++;
    const summary = summarizeRun(run);
    if (summary) {
      await client.query('INSERT INTO run_summaries (run_id, workflow, finished_at, record) VALUES ($1, $2, $3, $4)', [
        summary.runId,
        summary.workflow,
        summary.finishedAt,
        asJson(summary),
      ]);
    }
    for (const event of await runs.events(run.id)) {
      await client.query('INSERT INTO run_events (position, run_id, seq, record) VALUES ($1, $2, $3, $4)', [event.pos, run.id, event.seq, asJson(event)]);
      highest = Math.max(highest, event.pos);
      counts.runEvents++;
    }
  }
  // New events come after every copied one.
  if (highest > 0) await client.query("SELECT setval('svc_event_position', $1)", [highest]);
  Object.assign(counts, await copySettingsAndState(store, client));
  return counts;
}

/** The assistant configuration, the trigger registry, webhook dedupe and deliveries, schedule state. */
async function copySettingsAndState(
  store: Awaited<ReturnType<typeof openFileStore>>,
  client: Queryable,
): Promise<Pick<MigrationCounts, 'config' | 'webhookTriggers' | 'webhookDedupe' | 'webhookDeliveries' | 'scheduleStates' | 'queueEntries'>> {
  const config = await (await openAssistantsConfigRepository(store)).get();
  if (config) await client.query('INSERT INTO config (id, record) VALUES ($1, $2)', [config.id, asJson(config)]);

  // The registry's paths are this machine's: the records say so, so that only its servers judge them (docs/scaling.md).
  const triggers = (await store.collection<TriggerRecord>(TRIGGERS_COLLECTION, 'single')).all();
  for (const trigger of triggers)
    await client.query('INSERT INTO webhook_triggers (slug, record) VALUES ($1, $2)', [trigger.slug, asJson({ host: hostname(), ...trigger })]);

  const dedupe = (await store.collection<DedupeRecord>(DEDUPE_COLLECTION, 'per-record')).all();
  for (const record of dedupe) await client.query('INSERT INTO webhook_dedupe (id, record) VALUES ($1, $2)', [record.id, asJson(record)]);

  // Oldest first: the table's identity order is the history's order.
  const deliveries = (await (await openWebhookRepositories(store)).deliveries.list({ limit: DELIVERY_HISTORY })).reverse();
  for (const delivery of deliveries) await client.query('INSERT INTO webhook_deliveries (record) VALUES ($1)', [asJson(delivery)]);

  const schedules = (await store.collection<ScheduleState>(SCHEDULE_STATE_COLLECTION, 'per-record')).all();
  for (const state of schedules) await client.query('INSERT INTO schedule_state (id, record) VALUES ($1, $2)', [state.id, asJson(state)]);

  // Every workspace's queue, in place order; the sequence goes past the highest place copied.
  const stored = (await store.collection<QueueEntry & { id: string }>(QUEUE_COLLECTION, 'per-record')).all();
  const entries = stored.map(({ id: _id, ...entry }) => entry).sort((a, b) => a.position - b.position);
  for (const entry of entries) {
    await client.query('INSERT INTO landing_queue (run_id, workspace_id, target, position, record) VALUES ($1, $2, $3, $4, $5)', [
      entry.runId,
      entry.workspaceId,
      entry.target,
      entry.position,
      asJson(entry),
    ]);
  }
  const highest = Math.max(0, ...entries.map((e) => e.position));
  if (highest > 0) await client.query("SELECT setval('landing_queue_position', $1)", [highest]);

  return {
    config: config ? 1 : 0,
    queueEntries: entries.length,
    webhookTriggers: triggers.length,
    webhookDedupe: dedupe.length,
    webhookDeliveries: deliveries.length,
    scheduleStates: schedules.length,
  };
}
