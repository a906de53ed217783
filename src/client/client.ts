import { errorAnswer } from '../shared/error-answer.js';
import { DomainError } from '../shared/errors.js';
import { ApiResponseError } from './errors.js';
import { followStream, type EventFeed, type FollowOptions } from './events.js';
import type { ApiRequest, RunHost, Transport } from './transport.js';
import type {
  AssistantsView,
  Benchmark,
  BenchmarkQuery,
  VersionBenchmark,
  Comparison,
  DashboardQuery,
  DashboardRuns,
  AssistantsPatch,
  Conversation,
  ConversationList,
  ConversationListQuery,
  MessagePage,
  CommandListing,
  ConfigView,
  DeliveryQuery,
  DeliveryView,
  Health,
  RunDetail,
  RunDiff,
  MergeAnswer,
  MergeInput,
  EnqueueInput,
  QueuedAnswer,
  QueueView,
  NodeLogPage,
  PullRequestInput,
  PullView,
  RunList,
  RunListQuery,
  RunView,
  SavedWorkflowDocument,
  ScheduleView,
  StartRunInput,
  StartedRun,
  EnvironmentView,
  UpdateCheck,
  WorkflowDocument,
  WorkflowListing,
  WorkflowTestInput,
  WorkflowTestResult,
  TriggerRegistrationView,
  WebhookTriggerView,
  Workspace,
  WorkspaceConflicts,
  WorkspaceDetail,
  CleanupResult,
  SetupCacheView,
  WorkspaceList,
} from './types.js';

/**
 * The svc API as typed calls, one per endpoint, the same over HTTP and in process. A non-2xx
 * answer is an ApiResponseError; an unreachable server a ServerUnreachableError.
 */
export interface SvcClient {
  /** The server's URL (in process: a placeholder origin). */
  readonly baseUrl: string;
  /** Where runs started through this client execute (transport.ts). */
  runHost(): Promise<RunHost>;
  runs: {
    /** Accepted: the run's id and state, and where it runs (its workspace and worktree, or its cwd in place). */
    start(workflow: string, input: StartRunInput): Promise<StartedRun>;
    list(query?: RunListQuery): Promise<RunList>;
    get(runId: string): Promise<RunDetail>;
    byWorker(platformId: string): Promise<RunView>;
    cancel(runId: string): Promise<RunView>;
    abandon(runId: string): Promise<RunView>;
    /** `maxCostUsd` replaces the run's spend cap. */
    resume(runId: string, input?: { maxCostUsd?: number }): Promise<RunView>;
    approve(runId: string, input?: { comment?: string }): Promise<RunView>;
    /** Delivers `event` to the run's node waiting for it; the payload becomes that node's output. */
    signal(runId: string, input: { event: string; payload?: unknown }): Promise<RunView>;
    reject(runId: string, input?: { reason?: string }): Promise<RunView>;
    delete(runId: string): Promise<{ deleted: true; runId: string }>;
    /** What the run changed on its branch (or one node's commits): files and the patch, cut at 1 MiB. */
    diff(runId: string, query?: { node?: string }): Promise<RunDiff>;
    /** A page (at most 1 MiB) of a node's log from byte `offset`, with the node's state. */
    log(runId: string, nodeId: string, query?: { offset?: number }): Promise<NodeLogPage>;
    /** Merges the run's branch into a branch of its workspace (the user's checkout kept safe). */
    merge(runId: string, input?: MergeInput): Promise<MergeAnswer>;
    /** The run enters its workspace's landing queue (`POST …/merge {"queue": true}`). */
    enqueue(runId: string, input?: EnqueueInput): Promise<QueuedAnswer>;
    /** Pushes the run's branch `svc/<runId>` (to origin unless named). */
    push(runId: string, input?: { remote?: string }): Promise<{ remote: string; branch: string }>;
    /** Pushes the branch, then opens a pull request for it with the GitHub CLI. */
    pr(runId: string, input?: PullRequestInput): Promise<{ url: string }>;
    /** A person's go-on to its followed pull request that needs one; `maxFixCycles` is its bound from now on. */
    resumePr(runId: string, input?: { maxFixCycles?: number }): Promise<PullView>;
  };
  bench: {
    /** Percentiles over the newest completed and failed runs of a workflow. */
    workflow(query: BenchmarkQuery): Promise<Benchmark>;
    /** The same runs per version of the workflow, newest version first. */
    versions(query: BenchmarkQuery): Promise<VersionBenchmark>;
    compare(runA: string, runB: string): Promise<Comparison>;
    workflows(): Promise<{ workflows: string[] }>;
  };
  dashboard: {
    runs(query?: DashboardQuery): Promise<DashboardRuns>;
  };
  workflows: {
    /** `workspaceId`: the workspace the listing speaks for (default: the one whose checkout holds `cwd`). */
    list(cwd?: string, place?: { workspaceId?: string }): Promise<WorkflowListing>;
    /** The workflow `name` means from `cwd`, or from `workspaceId`: that workspace's own first. */
    get(name: string, cwd?: string, place?: { workspaceId?: string }): Promise<WorkflowDocument>;
    /** YAML text (kept as written) or an object. */
    save(name: string, definition: string | Record<string, unknown>, cwd?: string): Promise<SavedWorkflowDocument>;
    delete(name: string, cwd?: string): Promise<{ name: string; deleted: string[] }>;
    validate(definition: string | Record<string, unknown>): Promise<{ valid: boolean; errors?: string[] }>;
    /** Runs the workflow with its agents answered from the fixture (YAML text) and checks its expectations; 422 `invalid_fixture`. */
    test(name: string, input: WorkflowTestInput): Promise<WorkflowTestResult>;
  };
  commands: {
    list(cwd?: string): Promise<CommandListing>;
  };
  workspaces: {
    /** Clone `{url}` or register an existing directory `{path}`. */
    add(input: { url?: string; path?: string }): Promise<Workspace>;
    list(query?: { limit?: number; offset?: number }): Promise<WorkspaceList>;
    /** The workspace, with `disk`: its run worktrees on the server's disk and their size. */
    get(id: string): Promise<WorkspaceDetail>;
    environments(id: string): Promise<{ environments: EnvironmentView[] }>;
    /** The conflict forecast of its unlanded run branches; with `runId`, only the entries naming that run. */
    conflicts(id: string, query?: { runId?: string }): Promise<WorkspaceConflicts>;
    /** The setup cache of `.svc/worktree.yaml`'s `cache:` in the server's home; `clearCache` empties it. */
    cache(id: string): Promise<SetupCacheView>;
    clearCache(id: string): Promise<{ workspaceId: string; removed: number; freedBytes: number }>;
    /** The env-leak gate's consent bit (audit-logged by the server). */
    setConsent(id: string, allowEnvKeys: boolean): Promise<Workspace>;
    setEnv(id: string, values: Record<string, string>): Promise<Workspace>;
    unsetEnv(id: string, key: string): Promise<Workspace>;
    delete(id: string): Promise<{ deleted: true; id: string }>;
    /**
     * Removes the worktrees of finished runs that ended longer ago than `olderThan` (e.g. `7d`), or
     * with `merged` whose branch is merged into the default branch (`force`: unmerged ones too).
     */
    cleanup(input?: { olderThan?: string; merged?: boolean; force?: boolean; workspaceId?: string }): Promise<CleanupResult>;
    /** The workspace's landing queue, in queue order. */
    queue(id: string): Promise<QueueView>;
  };
  webhooks: {
    /** The registered triggers and whether each secret is configured (never its value). */
    list(): Promise<{ webhooks: WebhookTriggerView[] }>;
    /**
     * Registers the triggers of the workflows under `cwd` (and the workspaces): a listing never
     * does. Without `cwd`, the server's own directory and workspaces: what it registers when their
     * files change, done now.
     */
    register(cwd?: string): Promise<TriggerRegistrationView>;
    /** Recent deliveries, newest first. */
    deliveries(query?: DeliveryQuery): Promise<{ deliveries: DeliveryView[] }>;
  };
  schedules: {
    /** Each workflow schedule and its next firing. */
    list(): Promise<{ schedules: ScheduleView[] }>;
  };
  conversations: {
    create(input?: { workspace_id?: string; title?: string; assistant?: string }): Promise<Conversation>;
    list(query?: ConversationListQuery): Promise<ConversationList>;
    /** Either id. */
    get(id: string): Promise<Conversation>;
    rename(id: string, title: string): Promise<Conversation>;
    /** Soft delete. */
    delete(id: string): Promise<Conversation>;
    messages(id: string, query?: { limit?: number; before?: string }): Promise<MessagePage>;
    /** Stores the message and queues it; the reply comes on the conversation's stream. */
    send(id: string, message: string): Promise<{ accepted: true; messageId: string }>;
  };
  config: {
    get(): Promise<ConfigView>;
    setAssistants(patch: AssistantsPatch): Promise<AssistantsView>;
  };
  system: {
    health(): Promise<Health>;
    updateCheck(): Promise<UpdateCheck>;
  };
  events: {
    /** Follows a conversation's stream, or DASHBOARD_STREAM, replaying from `after` (Last-Event-ID). */
    follow(options: FollowOptions): Promise<EventFeed>;
  };
  /** Ends the client; in process, after the runs it started have settled. */
  close(): Promise<void>;
}

/**
 * One path segment. `.` and `..` (and their percent-encoded spellings) would be folded away by
 * URL parsing, turning `/api/workspaces/<id>/env/..` into `/api/workspaces/<id>/` — a different
 * endpoint. No id or name svc makes looks like that, so they are refused before anything is sent.
 */
function segment(value: string): string {
  if (value === '' || /^(\.|%2e){1,2}$/i.test(value)) {
    // Answered as the server would answer it: the status of its code and the one error body.
    const { status, body } = errorAnswer(new DomainError('invalid_request', `'${value}' is not a valid id or name.`));
    throw new ApiResponseError(status, body);
  }
  return encodeURIComponent(value);
}

function withQuery(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export interface ClientOptions {
  /** Headers every request carries (the CLI names itself as the actor: `x-svc-actor: cli`). */
  headers?: Record<string, string>;
}

export function createClient(transport: Transport, options: ClientOptions = {}): SvcClient {
  async function call<T>(method: ApiRequest['method'], path: string, body?: unknown): Promise<T> {
    const answer = await transport.send({ method, path, body, ...(options.headers ? { headers: options.headers } : {}) });
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    const errorBody = typeof answer.body === 'object' && answer.body !== null ? (answer.body as Record<string, unknown>) : { message: String(answer.body) };
    throw new ApiResponseError(answer.status, errorBody);
  }
  const run = (runId: string, action = '') => `/api/workflows/runs/${segment(runId)}${action ? `/${action}` : ''}`;
  const workspace = (id: string, rest = '') => `/api/workspaces/${segment(id)}${rest ? `/${rest}` : ''}`;
  const conversation = (id: string, rest = '') => `/api/conversations/${segment(id)}${rest ? `/${rest}` : ''}`;
  const workflow = (name: string, cwd?: string, workspaceId?: string) => withQuery(`/api/workflows/${segment(name)}`, { cwd, workspaceId });

  return {
    get baseUrl() {
      return transport.baseUrl;
    },
    runHost: () => transport.runHost(),
    runs: {
      start: (name, input) => call('POST', `/api/workflows/${segment(name)}/run`, input),
      list: (query = {}) => call('GET', withQuery('/api/workflows/runs', { ...query })),
      get: (runId) => call('GET', run(runId)),
      byWorker: (platformId) => call('GET', `/api/workflows/runs/by-worker/${segment(platformId)}`),
      cancel: (runId) => call('POST', run(runId, 'cancel')),
      abandon: (runId) => call('POST', run(runId, 'abandon')),
      resume: (runId, input = {}) => call('POST', run(runId, 'resume'), input),
      approve: (runId, input = {}) => call('POST', run(runId, 'approve'), input),
      signal: (runId, input) => call('POST', run(runId, 'signal'), input),
      reject: (runId, input = {}) => call('POST', run(runId, 'reject'), input),
      delete: (runId) => call('DELETE', run(runId)),
      diff: (runId, query = {}) => call('GET', withQuery(run(runId, 'diff'), { ...query })),
      log: (runId, nodeId, query = {}) => call('GET', withQuery(run(runId, `nodes/${segment(nodeId)}/log`), { ...query })),
      merge: (runId, input = {}) => call('POST', run(runId, 'merge'), input),
      enqueue: (runId, input = {}) => call('POST', run(runId, 'merge'), { ...input, queue: true }),
      push: (runId, input = {}) => call('POST', run(runId, 'push'), input),
      pr: (runId, input = {}) => call('POST', run(runId, 'pr'), input),
      resumePr: (runId, input = {}) => call('POST', run(runId, 'pr/resume'), input),
    },
    bench: {
      workflow: (query) => call('GET', withQuery('/api/runs/benchmark', { ...query })),
      versions: (query) => call('GET', withQuery('/api/runs/benchmark', { ...query, group: 'version' })),
      compare: (runA, runB) => call('GET', withQuery('/api/runs/benchmark/compare', { runA, runB })),
      workflows: () => call('GET', '/api/runs/benchmark/workflows'),
    },
    dashboard: {
      runs: (query = {}) => call('GET', withQuery('/api/dashboard/runs', { ...query })),
    },
    workflows: {
      list: (cwd, place = {}) => call('GET', withQuery('/api/workflows', { cwd, workspaceId: place.workspaceId })),
      get: (name, cwd, place = {}) => call('GET', workflow(name, cwd, place.workspaceId)),
      save: (name, definition, cwd) => call('PUT', workflow(name, cwd), { definition }),
      delete: (name, cwd) => call('DELETE', workflow(name, cwd)),
      validate: (definition) => call('POST', '/api/workflows/validate', { definition }),
      test: (name, input) => call('POST', `/api/workflows/${segment(name)}/test`, input),
    },
    commands: {
      list: (cwd) => call('GET', withQuery('/api/commands', { cwd })),
    },
    workspaces: {
      add: (input) => call('POST', '/api/workspaces', input),
      list: (query = {}) => call('GET', withQuery('/api/workspaces', { ...query })),
      get: (id) => call('GET', workspace(id)),
      environments: (id) => call('GET', workspace(id, 'environments')),
      conflicts: (id, query = {}) => call('GET', withQuery(workspace(id, 'conflicts'), { ...query })),
      cache: (id) => call('GET', workspace(id, 'cache')),
      clearCache: (id) => call('DELETE', workspace(id, 'cache')),
      setConsent: (id, allowEnvKeys) => call('PATCH', workspace(id), { allowEnvKeys }),
      setEnv: (id, values) => call('PUT', workspace(id, 'env'), values),
      unsetEnv: (id, key) => call('DELETE', workspace(id, `env/${segment(key)}`)),
      delete: (id) => call('DELETE', workspace(id)),
      cleanup: (input = {}) => call('POST', '/api/workspaces/cleanup', input),
      queue: (id) => call('GET', workspace(id, 'queue')),
    },
    webhooks: {
      list: () => call('GET', '/api/webhooks'),
      register: (cwd) => call('POST', withQuery('/api/webhooks/register', { cwd })),
      deliveries: (query = {}) => call('GET', withQuery('/api/webhooks/deliveries', { ...query })),
    },
    schedules: {
      list: () => call('GET', '/api/schedules'),
    },
    conversations: {
      create: (input = {}) => call('POST', '/api/conversations', input),
      list: (query = {}) =>
        call(
          'GET',
          withQuery('/api/conversations', { ...query, include_deleted: query.include_deleted === undefined ? undefined : String(query.include_deleted) }),
        ),
      get: (id) => call('GET', conversation(id)),
      rename: (id, title) => call('PATCH', conversation(id), { title }),
      delete: (id) => call('DELETE', conversation(id)),
      messages: (id, query = {}) => call('GET', withQuery(conversation(id, 'messages'), { ...query })),
      send: (id, message) => call('POST', conversation(id, 'message'), { message }),
    },
    config: {
      get: () => call('GET', '/api/config'),
      setAssistants: (patch) => call('PATCH', '/api/config/assistants', patch),
    },
    system: {
      health: () => call('GET', '/api/health'),
      updateCheck: () => call('GET', '/api/update-check'),
    },
    events: {
      follow: (options) => followStream(transport, options),
    },
    close: () => transport.close(),
  };
}
