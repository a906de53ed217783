import type { Migration } from './migrate.js';

/**
 * The PostgreSQL store's schema, as numbered migrations applied in order at start (migrate.ts).
 * Append only: a released migration is never edited, a change is a new one.
 *
 * Each table keeps the record as the domain stores it (`record jsonb`, the same object the file
 * store writes) and derives, as stored generated columns, the fields that queries filter, order,
 * or dedupe by — so the indexed columns can never disagree with the record, and a field the domain
 * adds needs no migration until a query uses it (docs/decisions.md, "PostgreSQL store").
 *
 * Times are the records' ISO-8601 UTC strings (`toISOString()`), kept as text: they order as time,
 * and a cast to timestamptz is not immutable, so it cannot back a generated column.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'workspaces, conversations, messages, webhook dedupe and deliveries, schedule state',
    sql: `
      CREATE TABLE workspaces (
        id text PRIMARY KEY,
        record jsonb NOT NULL,
        source_key text GENERATED ALWAYS AS (record->>'source_key') STORED,
        created_at text GENERATED ALWAYS AS (record->>'created_at') STORED
      );
      -- insert-if-absent: one workspace per clone URL or directory.
      CREATE UNIQUE INDEX workspaces_source_key ON workspaces (source_key);
      CREATE INDEX workspaces_created ON workspaces (created_at, id);

      CREATE TABLE workspace_environments (
        id text PRIMARY KEY,
        record jsonb NOT NULL,
        workspace_id text GENERATED ALWAYS AS (record->>'workspace_id') STORED,
        run_id text GENERATED ALWAYS AS (record->>'run_id') STORED,
        created_at text GENERATED ALWAYS AS (record->>'created_at') STORED
      );
      CREATE INDEX workspace_environments_newest ON workspace_environments (created_at DESC, id DESC);
      CREATE INDEX workspace_environments_workspace ON workspace_environments (workspace_id, created_at DESC, id DESC);
      CREATE INDEX workspace_environments_run ON workspace_environments (run_id);

      -- A workspace's env values, one row per name: merge and unset touch only their names.
      CREATE TABLE workspace_env (
        workspace_id text NOT NULL,
        name text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (workspace_id, name)
      );

      CREATE TABLE conversations (
        id text PRIMARY KEY,
        record jsonb NOT NULL,
        platform_conversation_id text GENERATED ALWAYS AS (record->>'platform_conversation_id') STORED,
        workspace_id text GENERATED ALWAYS AS (record->>'workspace_id') STORED,
        created_at text GENERATED ALWAYS AS (record->>'created_at') STORED,
        deleted boolean GENERATED ALWAYS AS (coalesce(record->>'deleted_at', '') <> '') STORED,
        has_pending boolean GENERATED ALWAYS AS (
          CASE WHEN jsonb_typeof(record->'pending_message_ids') = 'array' THEN jsonb_array_length(record->'pending_message_ids') > 0 ELSE false END
        ) STORED
      );
      CREATE INDEX conversations_platform_id ON conversations (platform_conversation_id);
      CREATE INDEX conversations_newest ON conversations (created_at DESC, id DESC);
      CREATE INDEX conversations_live_newest ON conversations (created_at DESC, id DESC) WHERE NOT deleted;
      CREATE INDEX conversations_workspace ON conversations (workspace_id, created_at DESC, id DESC);
      CREATE INDEX conversations_pending ON conversations (id) WHERE has_pending;

      -- The last place taken in each conversation: reserving one is a single atomic upsert, so
      -- servers sharing the database never hand out the same place twice.
      CREATE TABLE message_places (
        conversation_id text PRIMARY KEY,
        last_seq integer NOT NULL
      );
      CREATE TABLE messages (
        conversation_id text NOT NULL,
        seq integer NOT NULL,
        id text NOT NULL,
        record jsonb NOT NULL,
        reply_to text GENERATED ALWAYS AS (record->'metadata'->>'replyTo') STORED,
        PRIMARY KEY (conversation_id, seq)
      );
      CREATE UNIQUE INDEX messages_id ON messages (conversation_id, id);
      CREATE INDEX messages_reply_to ON messages (conversation_id, reply_to, seq) WHERE reply_to IS NOT NULL;

      CREATE TABLE webhook_dedupe (
        id text PRIMARY KEY,
        record jsonb NOT NULL,
        run_id text GENERATED ALWAYS AS (record->>'runId') STORED,
        expires_at bigint GENERATED ALWAYS AS ((record->>'expiresAt')::bigint) STORED
      );
      CREATE INDEX webhook_dedupe_expires ON webhook_dedupe (expires_at);

      -- The delivery history: positions give the order across servers; old rows are pruned. Its
      -- filters look only at the newest N rows (the primary key serves that), so they need no index.
      CREATE TABLE webhook_deliveries (
        position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        record jsonb NOT NULL,
        slug text GENERATED ALWAYS AS (record->>'slug') STORED,
        outcome text GENERATED ALWAYS AS (record->>'outcome') STORED
      );

      CREATE TABLE schedule_state (
        id text PRIMARY KEY,
        record jsonb NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'runs and run events',
    sql: `
      CREATE TABLE runs (
        id text PRIMARY KEY,
        record jsonb NOT NULL,
        workflow text GENERATED ALWAYS AS (record->>'workflow') STORED,
        status text GENERATED ALWAYS AS (record->>'status') STORED,
        conversation_id text GENERATED ALWAYS AS (record->>'conversationId') STORED,
        platform_id text GENERATED ALWAYS AS (record->>'platformId') STORED,
        workspace_id text GENERATED ALWAYS AS (record->>'workspaceId') STORED,
        created_at text GENERATED ALWAYS AS (record->>'createdAt') STORED,
        resume_pending boolean GENERATED ALWAYS AS (coalesce((record->>'resumePending')::boolean, false)) STORED
      );
      -- Lists are newest first, and ids grow with time: the primary key read backwards, or these.
      CREATE INDEX runs_workflow ON runs (workflow, id DESC);
      CREATE INDEX runs_conversation ON runs (conversation_id, id DESC);
      CREATE INDEX runs_workspace ON runs (workspace_id, id DESC);
      CREATE INDEX runs_created ON runs (created_at);
      CREATE INDEX runs_status ON runs (status, created_at);
      CREATE INDEX runs_platform ON runs (platform_id);
      -- Short ids (a prefix, LIKE 'run_lq2x%') whatever the database's collation.
      CREATE INDEX runs_id_prefix ON runs (id text_pattern_ops);
      CREATE INDEX runs_resumable ON runs (workflow, conversation_id, id DESC) WHERE resume_pending AND status = 'failed';

      -- Every persisted stream event takes its place from this one sequence: the SSE id, shared by
      -- every server. A copied file store sets it past the positions it brings.
      CREATE SEQUENCE svc_event_position;
      CREATE TABLE run_events (
        position bigint PRIMARY KEY,
        run_id text NOT NULL,
        seq integer NOT NULL,
        -- The writing transaction: a reader returns only events of transactions older than every
        -- one still open, so a position taken earlier but committed later is never skipped.
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        record jsonb NOT NULL,
        conversation_id text GENERATED ALWAYS AS (record->>'conversationId') STORED,
        platform_id text GENERATED ALWAYS AS (record->>'platformId') STORED,
        UNIQUE (run_id, seq)
      );
      CREATE INDEX run_events_conversation ON run_events (conversation_id, position);
      CREATE INDEX run_events_platform ON run_events (platform_id, position);
    `,
  },
  {
    version: 3,
    name: 'run summaries, conversation events, run claims',
    sql: `
      -- What benchmarks read of an ended run (runs/storage/run-summaries.ts), newest first per workflow.
      CREATE TABLE run_summaries (
        run_id text PRIMARY KEY,
        workflow text NOT NULL,
        finished_at text NOT NULL,
        record jsonb NOT NULL
      );
      CREATE INDEX run_summaries_recent ON run_summaries (workflow, finished_at DESC);

      -- Conversation events take their positions from the same sequence as run events: one SSE order.
      CREATE TABLE conversation_events (
        position bigint PRIMARY KEY,
        conversation_id text NOT NULL,
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        record jsonb NOT NULL
      );
      CREATE INDEX conversation_events_conversation ON conversation_events (conversation_id, position);

      -- Which server executes a run, and until when its lease holds (renewed by heartbeat).
      CREATE TABLE svc_servers (
        id text PRIMARY KEY,
        started_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL,
        record jsonb NOT NULL DEFAULT '{}'
      );
      ALTER TABLE runs ADD COLUMN server_id text;
      CREATE INDEX runs_server ON runs (server_id) WHERE server_id IS NOT NULL;
      CREATE INDEX runs_pending ON runs (created_at, id) WHERE status = 'pending' AND server_id IS NULL;
      -- A list's counts per state read these alone (index-only scans), never the records: counting
      -- 10,000 runs then costs what counting 100 does, nearly (bench/postgres.mjs).
      CREATE INDEX runs_created_status ON runs (created_at, status);
      CREATE INDEX runs_workflow_status ON runs (workflow, status);
      CREATE INDEX runs_workspace_status ON runs (workspace_id, status);
      CREATE INDEX runs_conversation_status ON runs (conversation_id, status);
    `,
  },
  {
    version: 4,
    name: 'assistant configuration, webhook trigger registry',
    sql: `
      -- Settings shared by every server, one row per key ('assistants': svc config).
      CREATE TABLE config (
        id text PRIMARY KEY,
        record jsonb NOT NULL
      );

      -- The webhook trigger registry: one row per slug, so a delivery to any server finds it.
      CREATE TABLE webhook_triggers (
        slug text PRIMARY KEY,
        record jsonb NOT NULL,
        cwd text GENERATED ALWAYS AS (record->>'cwd') STORED,
        removed boolean GENERATED ALWAYS AS (coalesce((record->>'removed')::boolean, false)) STORED
      );
      -- A discovery pass refreshes the records of the directories it read.
      CREATE INDEX webhook_triggers_cwd ON webhook_triggers (cwd);
    `,
  },
  {
    version: 5,
    name: 'the server answering each conversation',
    sql: `
      -- The server answering a conversation's messages (coordination/postgres-answering.ts):
      -- a plain column, not in the record, as runs.server_id is; null when nothing is pending.
      ALTER TABLE conversations ADD COLUMN answering_server text;
      CREATE INDEX conversations_answering ON conversations (answering_server) WHERE answering_server IS NOT NULL;
      -- A message an earlier svc left pending was interrupted (its server stopped before answering):
      -- held by a server that is gone, the first server on the database answers it as interrupted, as
      -- it does a copied file store's (app/migrate-store.ts), not as a message waiting for a server.
      UPDATE conversations SET answering_server = 'srv_migrated' WHERE has_pending;
    `,
  },
  {
    version: 6,
    name: "homes: where a run's worktree is, and which servers share a home",
    sql: `
      -- The SVC_HOME holding a run's worktree (store/home-id.ts): only servers of that home claim
      -- the run again (approved, resumed), since the completed nodes' changes are there alone.
      ALTER TABLE runs ADD COLUMN home_id text;
      ALTER TABLE svc_servers ADD COLUMN home_id text;
      -- Every home a server ever ran from, kept after its servers are gone: what a waiting run names.
      CREATE TABLE svc_homes (
        id text PRIMARY KEY,
        host text NOT NULL,
        path text NOT NULL,
        seen_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 7,
    name: "a run's wake-up time",
    sql: `
      -- When a server does something to a run on its own (runs/wake-ups/wake-ups.ts): a waiting
      -- run's next wait ending, a failed run's auto-resume. Found by the one timer each server
      -- keeps, and at start-up.
      ALTER TABLE runs ADD COLUMN wake_at text GENERATED ALWAYS AS (record->>'wakeAt') STORED;
      CREATE INDEX runs_wake_at ON runs (wake_at) WHERE wake_at IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: "a node's memory history, per workflow and workspace",
    sql: `
      -- A summary now says the run's workspace (runs/storage/run-summaries.ts); those written before
      -- take it from their run, so a node's history on a workspace starts with what it already ran.
      UPDATE run_summaries s SET record = s.record || jsonb_build_object('workspaceId', r.record->>'workspaceId')
        FROM runs r WHERE r.id = s.run_id AND r.record->>'workspaceId' IS NOT NULL;
      -- '' for a run on no workspace: an equality the index below answers, where IS NULL would need a second path.
      ALTER TABLE run_summaries ADD COLUMN workspace_id text GENERATED ALWAYS AS (coalesce(record->>'workspaceId', '')) STORED;
      -- A node's memory estimate reads the newest runs of its workflow on its workspace, before the node starts.
      CREATE INDEX run_summaries_history ON run_summaries (workflow, workspace_id, finished_at DESC);
    `,
  },
  {
    version: 9,
    name: 'the landing queue',
    sql: `
      -- One entry per run entered in a workspace's landing queue (queue/postgres-repository.ts):
      -- its place from a sequence, its state a column the processor's queries read.
      CREATE SEQUENCE landing_queue_position;
      CREATE TABLE landing_queue (
        run_id text PRIMARY KEY,
        workspace_id text NOT NULL,
        target text NOT NULL,
        position bigint NOT NULL,
        record jsonb NOT NULL,
        state text GENERATED ALWAYS AS (record->>'state') STORED
      );
      CREATE INDEX landing_queue_order ON landing_queue (workspace_id, target, position);
      CREATE INDEX landing_queue_open ON landing_queue (state) WHERE state IN ('queued', 'verifying', 'paused');
      -- Which server processes a workspace's queue (coordination/postgres-queues.ts): held while
      -- that server's lease in svc_servers holds, then taken by another.
      CREATE TABLE landing_queue_holders (
        workspace_id text PRIMARY KEY,
        server_id text NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'followed pull requests',
    sql: `
      -- One row per run whose pull request svc follows (pulls/postgres-repository.ts): what the
      -- timer asks (the active ones due) and what a webhook delivery names (a pull request, a branch).
      CREATE TABLE pull_follows (
        run_id text PRIMARY KEY,
        record jsonb NOT NULL,
        repo text GENERATED ALWAYS AS (record->>'repo') STORED,
        number integer GENERATED ALWAYS AS ((record->>'number')::integer) STORED,
        branch text GENERATED ALWAYS AS (record->>'branch') STORED,
        active boolean GENERATED ALWAYS AS ((record->'active') = 'true'::jsonb) STORED,
        next_look_at text GENERATED ALWAYS AS (record->>'nextLookAt') STORED
      );
      CREATE INDEX pull_follows_due ON pull_follows (next_look_at) WHERE active;
      CREATE INDEX pull_follows_pull ON pull_follows (repo, number);
      CREATE INDEX pull_follows_branch ON pull_follows (branch);
      -- Which server follows a run's pull request (coordination/postgres-holders.ts): held while
      -- that server's lease in svc_servers holds, then taken by another.
      CREATE TABLE pull_follow_holders (
        run_id text PRIMARY KEY,
        server_id text NOT NULL
      );
    `,
  },
];
