import { hostname } from 'node:os';
import { join } from 'node:path';
import { AgentSlots, createAgents, withAgentSlots } from '../agents/index.js';
import { AssistantsConfigService } from '../config/index.js';
import { catalogResolver, WorkflowCatalog } from '../catalog/index.js';
import { RunEngine, isSettlingEvent, isTerminal } from '../runs/index.js';
import { MemoryAdmission } from '../processes/index.js';
import {
  ConversationService,
  EngineConversations,
  openConversationEventLog,
  openConversationRepositories,
  type ConversationEventLog,
  type SvcStreamEvent,
} from '../conversations/index.js';
import { localCoordination, type AnsweringCoordination } from '../coordination/index.js';
import { EventBus } from '../events/index.js';
import { createLogger, type Logger } from '../shared/logger.js';
import type { Settings } from '../shared/settings.js';
import { packageVersion } from '../shared/version.js';
import { openFileStore, type FileStore } from '../store/index.js';
import type { PostgresDatabase } from '../store/postgres/index.js';
import { allWorkspaces, openWorkspaceRepositories, WorkspaceService } from '../workspaces/index.js';
import { openWebhookRepositories, TriggerRegistry, WebhookService, type TriggerRecord } from '../webhooks/index.js';
import { openScheduleRepository, ScheduleService, scheduledWorkflows } from '../schedules/index.js';
import { ConflictForecast, LandingService } from '../landing/index.js';
import { LandingQueue, openQueueRepository } from '../queue/index.js';
import { openPullRepository, PullFollowing } from '../pulls/index.js';
import { BenchmarkService } from '../benchmarks/index.js';
import { openDatabaseRepositories } from './database.js';
import { rolePolicy, type ProcessRole } from './process-role.js';
import { closeCommandSandbox } from '../sandbox/index.js';
import { openTracing, type RunTracing } from '../tracing/index.js';

/**
 * Everything a front end (the server or the CLI's offline mode) needs, wired once. Domain
 * services are added here as they are built, so routes and commands receive them ready-made.
 */
export interface AppContext {
  settings: Settings;
  logger: Logger;
  store: FileStore;
  /**
   * The PostgreSQL database when `SVC_DATABASE_URL` is set: runs and their events and summaries,
   * workspaces, conversations, messages and their events, webhook dedupe, deliveries and the
   * trigger registry, schedule state and the assistant configuration live there; logs, artifacts,
   * clones and worktrees stay in `store`'s home (docs/scaling.md).
   */
  database?: PostgresDatabase;
  /** Run events and conversation events for SSE streams and CLI followers. */
  bus: EventBus<SvcStreamEvent>;
  version: string;
  startedAt: number;
  /** The address the server listens on, once it does. */
  listening?: { host: string; port: number; url: string };
  assistants: AssistantsConfigService;
  /** Workflow discovery, project-file CRUD, commands and the webhook trigger registry. */
  workflows: WorkflowCatalog<TriggerRecord>;
  /** Run in reverse order on shutdown (end SSE streams, stop the scheduler, …). */
  closers: Set<() => unknown>;
  engine: RunEngine;
  /** Registered workspaces, their worktrees, env values and the env-leak gate. */
  workspaces: WorkspaceService;
  /** Conversations, their messages and the orchestrator that answers them. */
  conversations: ConversationService;
  /** The signed webhook endpoint's decisions, dedupe records and delivery history. */
  webhooks: WebhookService;
  /** Cron triggers of workflows; ticking only in the server. */
  schedules: ScheduleService;
  /** Merging, pushing and proposing a run's branch, recorded on the run. */
  landing: LandingService;
  /** Which unlanded run branches of a workspace would conflict, computed when asked (docs/decisions.md, "Conflict forecast"). */
  forecast: ConflictForecast;
  /** The landing queue of each workspace and target branch; processed only in the server. */
  queue: LandingQueue;
  /** Runs' pull requests followed, and their reactions (docs/decisions.md, "Pull request reactions"); looked at only in the server. */
  pulls: PullFollowing;
  /** Benchmarks and the dashboard's run query, over what runs offer to read. */
  benchmarks: BenchmarkService;
  /** One trace per run when an OTLP endpoint is configured (docs/decisions.md, "Traces"); else none, and no SDK loaded. */
  tracing: RunTracing;
}

export interface ContextOptions {
  settings: Settings;
  /** Readable log lines go here (the server's stderr); omitted for CLI use. */
  stderr?: { write(text: string): unknown };
  /** What this process is (process-role.ts), decided where it starts. */
  role: ProcessRole;
}

/**
 * The server registers the webhook triggers of its own directory and workspaces when a file in
 * their `.svc/workflows/` changes (docs/decisions.md, "Webhooks"), and every TRIGGER_FALLBACK_MS
 * whatever the watches saw: the schedules' tick, for a file system that sends no events.
 */
const TRIGGER_FALLBACK_MS = 15_000;

/**
 * How often the server looks at the open landing queues unasked: a queue paused by a dirty checkout
 * resumes within this of the checkout coming clean, and entries entered through another server on
 * a shared database are taken up within it (docs/contract.md, "Landing queue").
 */
const QUEUE_POLL_MS = 3_000;

export async function createContext(options: ContextOptions): Promise<AppContext> {
  const { settings } = options;
  const logger = createLogger({ level: settings.logLevel, file: join(settings.home, 'logs', 'svc.log'), stderr: options.stderr });
  const policy = rolePolicy(options.role, { sharedDatabase: Boolean(settings.databaseUrl) });
  const store = await openFileStore({ home: settings.home, logger, lock: policy.storeLock });
  let database: PostgresDatabase | undefined;
  let tracing: RunTracing | undefined;
  try {
    // Only a process that executes runs traces them: a reader (`svc runs list`) never loads the SDK.
    tracing = await openTracing(policy.executes ? settings.tracing : null, { logger, version: packageVersion() });
    const bus = new EventBus<SvcStreamEvent>();
    const shared = settings.databaseUrl
      ? await openDatabaseRepositories(settings.databaseUrl, logger, bus, settings.home, { leaseMs: settings.runLeaseMs, takesPart: policy.takesPartInLeases })
      : undefined;
    database = shared?.database;
    // Which process executes, answers and cleans up what (coordination/types.ts): this one alone, or one of several servers.
    const coordination = shared?.coordination ?? localCoordination();
    const ctx = {
      settings,
      logger,
      store,
      database,
      bus,
      version: packageVersion(),
      startedAt: Date.now(),
      assistants: shared ? new AssistantsConfigService(shared.config) : await AssistantsConfigService.open(store),
      // A read-only store (CLI reads) still discovers; it just does not save the trigger registry.
      // With a shared database the registry is there, its records naming this machine (docs/scaling.md).
      workflows: WorkflowCatalog.open(store, {
        logger,
        registry: shared
          ? new TriggerRegistry(shared.triggers, { writable: policy.writes, host: hostname() })
          : await TriggerRegistry.open(store, policy.writes),
        // Asked only after the webhook service below exists.
        secretWeakness: (trigger, workspaceId) => ctx.webhooks.secretWeakness({ trigger, workspaceId }),
        ...(shared ? { workspaces: () => allWorkspaces(shared.workspaces.workspaces) } : {}),
      }),
      closers: new Set(),
      tracing,
    } as Omit<
      AppContext,
      'engine' | 'workspaces' | 'conversations' | 'webhooks' | 'schedules' | 'landing' | 'forecast' | 'queue' | 'pulls' | 'benchmarks'
    > as AppContext;
    const { assistants } = ctx;
    // One memory budget for the nodes of every run and the replies of every conversation of this
    // server (docs/contract.md, "Memory admission"), which the workspaces' pool refills only fit into.
    const memory = new MemoryAdmission({ budgetBytes: settings.memoryBudgetBytes, sampleMs: settings.memorySampleMs });
    ctx.workspaces = new WorkspaceService({
      repositories: shared?.workspaces ?? (await openWorkspaceRepositories(store)),
      logger,
      home: settings.home,
      env: process.env,
      gitTimeoutMs: settings.gitTimeoutMs,
      ghBin: settings.ghBin,
      cacheMaxBytes: settings.cacheMaxBytes,
      memory,
      homes: coordination.homes,
      // A server registers its workflows' webhook triggers at once: the new workspace is one of its own places.
      // (Offline, the next server start does: the CLI's directory is no server's.)
      ...(policy.keepsClocks ? { registered: () => ctx.workflows.workspaceRegistered() } : {}),
      // Asked only after the engine below exists.
      runs: {
        finishedAt: async (runId) => {
          const run = await ctx.engine.find(runId);
          if (!run) return undefined;
          return isTerminal(run.status) ? (run.finishedAt ?? run.updatedAt) : null;
        },
      },
    });
    const { workspaces } = ctx;
    // What other servers deleted or cleaned up: this server removes its own home's part (docs/scaling.md).
    await coordination.homes.listen((change) => {
      workspaces.applyChange(change).catch((error: unknown) => logger.warn('workspace.change_failed', { change, error: (error as Error).message }));
    });
    // One pool of agent slots for the server's runs and conversations (docs/contract.md, "Agent slots").
    const agentSlots = new AgentSlots(settings.maxConcurrentAgents, (name) => assistants.maxConcurrentOf(name));
    const agents = withAgentSlots(createAgents(settings), agentSlots);
    const conversationRepositories = shared?.conversations ?? (await openConversationRepositories(store));
    ctx.engine = await RunEngine.open(
      {
        store,
        runStorage: shared?.runs,
        coordination,
        bus: shared?.publisher ?? ctx.bus,
        logger,
        limits: {
          maxConcurrentRuns: settings.maxConcurrentRuns,
          agentFirstEventTimeoutMs: settings.agentFirstEventTimeoutMs,
          agentIdleTimeoutMs: settings.agentIdleTimeoutMs,
          usageLimitRetryMs: settings.usageLimitRetryMs,
          autoResumeOnLimit: settings.autoResumeOnLimit,
          agentEnvAllow: settings.agentEnvAllow,
          runLeaseMs: settings.runLeaseMs,
          sandbox: { mode: settings.sandbox, svcHome: settings.home, bash: settings.sandboxBash },
        },
        agents,
        assistants,
        resolver: catalogResolver(ctx.workflows),
        worktrees: workspaces.runWorktrees,
        conversations: new EngineConversations(conversationRepositories),
        memory,
        tracing,
      },
      { recover: policy.executes, requeuePending: policy.requeuesPending },
    );
    // A pool's refill starts only inside the run and agent budgets (docs/decisions.md, "Setup cache and pool").
    workspaces.pool.holdWhile(() => agentSlots.waiting > 0 || ctx.engine.stats.queued > 0);
    const conversationEvents = shared?.conversationEvents ?? openConversationEventLog(ctx.store, ctx.bus);
    // The outcome of a run is posted by the server that ran it: with a shared database, this server's streams carry every server's events.
    const ownEvents = shared?.onOwnEvent ?? ((listener: (event: SvcStreamEvent) => void) => ctx.bus.subscribe(listener));
    ctx.landing = new LandingService({ engine: ctx.engine, workspaces });
    ctx.forecast = new ConflictForecast({ runs: ctx.engine, workspaces });
    ctx.queue = new LandingQueue({
      repository: shared?.queue ?? (await openQueueRepository(store)),
      engine: ctx.engine,
      workspaces,
      coordination: coordination.queues,
      sandbox: { mode: settings.sandbox, svcHome: settings.home, bash: settings.sandboxBash },
      memory,
      logger,
      pollMs: QUEUE_POLL_MS,
      home: settings.home,
    });
    ctx.pulls = new PullFollowing({
      repository: shared?.pulls ?? (await openPullRepository(store)),
      engine: ctx.engine,
      workspaces,
      coordination: coordination.pulls,
      ghBin: settings.ghBin,
      git: { env: process.env, timeoutMs: settings.gitTimeoutMs },
      home: settings.home,
      logger,
      pollMs: settings.prPollMs,
      checkStuckMs: settings.prCheckStuckMs,
      webhookSecret: settings.githubWebhookSecret,
    });
    // A reaction's follow-on run that ends has its result pushed at once, not at the next look.
    ctx.bus.subscribe((event) => {
      if (isSettlingEvent(event)) ctx.pulls.runSettled(event.runId);
    });
    // A deleted run leaves no queue entry or followed pull request behind (every server hears of it: run_deleted is relayed).
    ctx.bus.subscribe((event) => {
      if (event.type !== 'run_deleted' || !policy.writes) return;
      ctx.queue.forget(event.runId).catch((error: unknown) => logger.warn('queue.forget_failed', { runId: event.runId, error: (error as Error).message }));
      ctx.pulls.forget(event.runId).catch((error: unknown) => logger.warn('pulls.forget_failed', { runId: event.runId, error: (error as Error).message }));
    });
    ctx.benchmarks = new BenchmarkService(ctx.engine.runs);
    ctx.conversations = openConversationService(ctx, conversationRepositories, conversationEvents, ownEvents, agents, coordination.answering, memory);
    if (policy.executes) await ctx.conversations.orchestrator.recoverInterrupted();
    const { engine } = ctx;
    ctx.webhooks = new WebhookService({
      repositories: shared?.webhooks ?? (await openWebhookRepositories(store)),
      logger,
      findTrigger: (slug) => ctx.workflows.findTrigger(slug),
      // Rejects when the workspace is gone (its trigger then has no secret).
      workspaceEnv: async (id) => {
        await workspaces.get(id);
        return workspaces.envValues(id);
      },
      processSecret: (name) => settings.webhookSecret(name),
      startRun: (request) => engine.start({ ...request, trigger: 'webhook' }),
      signalRun: (runId, event, payload) => engine.signal(runId, event, payload),
      runExists: async (runId) => (await engine.find(runId)) !== undefined,
      reservationGraceMs: settings.databaseUrl ? 2 * settings.runLeaseMs + 10_000 : 0,
      artifactsDir: (runId) => engine.artifactsDir(runId),
    });
    ctx.schedules = new ScheduleService({
      repository: shared?.schedules ?? (await openScheduleRepository(store)),
      upSince: shared?.scheduleUpSince,
      logger,
      scheduled: () => scheduledWorkflows(ctx.workflows),
      startRun: (request) => engine.start({ ...request, trigger: 'schedule' }),
      runState: async (runId) => {
        const run = await engine.find(runId);
        return run ? { terminal: isTerminal(run.status) } : undefined;
      },
    });
    if (policy.keepsClocks) {
      // The server registers the webhook triggers of its own directory and the workspaces before
      // its first request, and keeps them registered: the only triggers registered without an
      // explicit call (docs/decisions.md, "Webhooks").
      await ctx.workflows.registerTriggers().catch((error: Error) => logger.warn('workflows.discovery_failed', { error: error.message }));
      ctx.closers.add(await ctx.workflows.watchTriggers({ fallbackMs: TRIGGER_FALLBACK_MS }));
      // Only the server keeps runs' wake-ups (durable waits, auto-resume): a CLI process never continues a run on its own.
      engine.keepWakeUps(shared ? settings.runLeaseMs : undefined);
      // Only the server lands queued runs: what a stopped server left is taken up where it stopped.
      ctx.queue.start();
      // Only the server follows pull requests: what a stopped server followed is looked at again where it stopped.
      ctx.pulls.start();
      // Only the server keeps pools of prepared worktrees filled, starting with what a killed one left half-prepared.
      ctx.workspaces.pool.start();
      ctx.closers.add(() => ctx.workspaces.pool.close());
      // Last, with nothing awaited after it: a caller may stop the schedules before their first tick.
      ctx.schedules.start();
      ctx.closers.add(() => ctx.schedules.stop());
    }
    return ctx;
  } catch (error) {
    await tracing?.close();
    await database?.close();
    await store.close();
    throw error;
  }
}

/** The conversations domain, given what it asks of the engine, the catalog, the workspaces and the configuration. */
function openConversationService(
  ctx: AppContext,
  repositories: Awaited<ReturnType<typeof openConversationRepositories>>,
  events: ConversationEventLog,
  ownEvents: (listener: (event: SvcStreamEvent) => void) => unknown,
  agents: ReturnType<typeof createAgents>,
  answering: AnsweringCoordination,
  memory: MemoryAdmission,
) {
  const { engine, workspaces, assistants, workflows, settings } = ctx;
  const service = new ConversationService({
    repositories,
    events,
    logger: ctx.logger,
    agents,
    assistants,
    workspaces: {
      idOf: (ref) => workspaces.idOf(ref),
      cwdOf: async (id) => (await workspaces.get(id)).path,
      env: (id) => workspaces.envValues(id),
      assertAgentAllowed: (id) => workspaces.assertAgentAllowed(id),
    },
    runs: {
      start: async (input) => {
        const run = await engine.start({ ...input, trigger: 'api' });
        return { id: run.id, status: run.status };
      },
      list: async (conversationId, limit) =>
        (await engine.list({ conversationId, limit })).runs.map((r) => ({
          id: r.id,
          workflow: r.workflow,
          status: r.status,
          createdAt: r.createdAt,
          error: r.error,
        })),
      workflows: async () => (await workflows.discover()).workflows.map((w) => ({ name: w.name, description: w.workflow.description })),
    },
    env: process.env,
    cwd: workflows.defaultCwd,
    limits: {
      maxConcurrentConversations: settings.maxConcurrentConversations,
      agentFirstEventTimeoutMs: settings.agentFirstEventTimeoutMs,
      agentEnvAllow: settings.agentEnvAllow,
      sandbox: { mode: settings.sandbox, svcHome: settings.home },
    },
    answering,
    memory,
  });
  // A run linked to a conversation posts its outcome there.
  ownEvents((event) => service.runEvent(event));
  return service;
}

export async function closeContext(context: AppContext): Promise<void> {
  context.schedules.stop();
  // Before the engine and the store: a verification under way is stopped, its entry left for the next start.
  await context.queue.close();
  await context.pulls.close();
  // The engine first: the runs it stops end `failed`/`interrupted`, and the orchestrator, still
  // open, posts those outcomes to their conversations.
  await context.engine.close();
  // After the engine: the runs it stopped ended their spans; a paused run's span ends now, and every span is sent.
  await context.tracing.close();
  // The bash nodes' sandbox session, once nothing runs in it (its proxies keep the process alive).
  await closeCommandSandbox();
  await context.conversations.orchestrator.close();
  await context.database?.close();
  await context.store.close();
}
