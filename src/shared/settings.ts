import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseSize, SIZE_HINT } from './size.js';

/** Log levels in increasing severity; `SVC_LOG_LEVEL` picks the lowest one written. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Every environment variable svc reads, resolved once. Nothing else reads `process.env`, so this
 * file is the single place that documents them (docs/contract.md, "Environment").
 */
export interface Settings {
  /** All state: store, clones, worktrees, artifacts, logs. @default `SVC_HOME` || `~/.svc` */
  home: string;
  /** Bind address. The API has no auth, so anything beyond loopback is opt-in. @default `SVC_HOST` || `127.0.0.1` */
  host: string;
  /** Explicit port; `undefined` means "choose by the rules of docs/contract.md, "Port"". @default `PORT` */
  port: number | undefined;
  /** Runs executing at once; others wait as `pending`. @default `SVC_MAX_CONCURRENT_RUNS` || 4 */
  maxConcurrentRuns: number;
  /**
   * Agent processes running at once on this server, across all runs and conversations; more wait
   * for a slot, first come, first served (docs/contract.md, "Agent slots"). @default `SVC_MAX_CONCURRENT_AGENTS` || 4
   */
  maxConcurrentAgents: number;
  /**
   * The memory of all nodes running at once on this server, across runs and conversations; a node
   * whose estimate does not fit waits (`waitingFor: "memory"`), first come, first served
   * (docs/contract.md, "Memory admission"). null: 75% of the machine's MemTotal. @default `SVC_MEMORY_BUDGET` (a size: `600MB`, `2GB`)
   */
  memoryBudgetBytes: number | null;
  /**
   * How often a running node's (or conversation reply's) process tree is measured; 0: never, so
   * nothing records `peakRssBytes` and `max_memory` limits nothing (docs/decisions.md, "What a run
   * costs the machine"). @default `SVC_MEMORY_SAMPLE_MS` || 500
   */
  memorySampleMs: number;
  /** The setup caches of all workspaces of the home, least recently used evicted past it (docs/decisions.md, "Setup cache and pool"). @default `SVC_CACHE_MAX_BYTES` (a size) || 10GiB */
  cacheMaxBytes: number;
  /** Conversations being answered at once; messages of others wait. @default `SVC_MAX_CONCURRENT_CONVERSATIONS` || 4 */
  maxConcurrentConversations: number;
  /** No stdout line from an agent within this many ms kills it. @default `SVC_AGENT_FIRST_EVENT_TIMEOUT_MS` || 60000 */
  agentFirstEventTimeoutMs: number;
  /**
   * A prompt or command node whose agent prints nothing for this many ms is stopped and fails
   * `stalled`, unless the node or its workflow sets `idle_timeout` (docs/decisions.md, "Stalls").
   * @default `SVC_AGENT_IDLE_TIMEOUT_MS` || 600000
   */
  agentIdleTimeoutMs: number;
  /**
   * When an agent ends on its usage limit without saying when it resets, the node's `resumeAt` is
   * this many ms later (docs/decisions.md, "Usage limits").
   * @default `SVC_USAGE_LIMIT_RETRY_MS` || 1800000
   */
  usageLimitRetryMs: number;
  /**
   * A run that fails on an agent's usage limit is resumed by the server when the limit resets, for
   * every workflow that does not say `auto_resume: false` (docs/decisions.md, "Auto-resume").
   * @default `SVC_AUTO_RESUME_ON_LIMIT` (`1`/`true`) || off
   */
  autoResumeOnLimit: boolean;
  /**
   * The server's variables every agent (and every bash node with `env: { inherit: false }`) gets
   * beyond the base set, as names or `PREFIX_*` (docs/contract.md, "Least-privilege environment").
   * @default `SVC_AGENT_ENV_ALLOW` (comma-separated) || none
   */
  agentEnvAllow: string[];
  /**
   * `off`: agents at `read` and `edit` run without their OS sandbox, and every such node says so
   * (`sandbox: "off"`, `sandboxOff: "SVC_SANDBOX=off"`); `on` (the default): a node whose sandbox
   * cannot start fails `sandbox_unavailable` (docs/decisions.md, "Agents in a sandbox").
   * @default `SVC_SANDBOX` (`off`/`0`/`false` or `on`/`1`/`true`) || `on`
   */
  sandbox: 'on' | 'off';
  /**
   * Whether a bash node that says nothing about `sandbox` runs in one (docs/decisions.md, "Bash
   * nodes in a sandbox"); the bash nodes of a run with values from outside (a webhook, a signal)
   * always do, unless the node says `sandbox: false`.
   * @default `SVC_SANDBOX_BASH` (`1`/`on`/`true` or `0`/`off`/`false`) || off
   */
  sandboxBash: boolean;
  /** Claude Code executable. @default `SVC_CLAUDE_BIN` || `claude` */
  claudeBin: string;
  /** Codex executable. @default `SVC_CODEX_BIN` || `codex` */
  codexBin: string;
  /** The GitHub CLI, which opens a run's pull request (`svc runs pr`) and follows it. @default `SVC_GH_BIN` || `gh` */
  ghBin: string;
  /**
   * How often a followed pull request is looked at (docs/decisions.md, "Pull request reactions"):
   * undefined, the default, is every 30 s at first and slower as the pull request ages; set, that
   * interval always, without backoff. @default `SVC_PR_POLL_MS`, unset
   */
  prPollMs: number | undefined;
  /**
   * How long a followed pull request's check may stay running (in progress; never one queued or waiting) on one head
   * commit before it is stuck and a person is asked (docs/decisions.md, "Pull request reactions").
   * @default `SVC_PR_CHECK_STUCK_MS` || 21600000 (6 h)
   */
  prCheckStuckMs: number;
  /**
   * The secret GitHub signs its deliveries to `POST /webhooks/github` with (`X-Hub-Signature-256`);
   * unset, the endpoint answers 503 and pull requests are only polled. @default `SVC_GITHUB_WEBHOOK_SECRET`, unset
   */
  githubWebhookSecret: string | undefined;
  /** Where an agent executable named without a path is looked for (health's `available`). @default `PATH` */
  searchPath: string;
  /** @default `SVC_LOG_LEVEL` || `info` */
  logLevel: LogLevel;
  /** A git clone (or other git command) taking longer is stopped. @default `SVC_GIT_TIMEOUT_MS` || 300000 */
  gitTimeoutMs: number;
  /**
   * A request body (API JSON or webhook) not arrived whole within this many ms is answered 408
   * `request_timeout` and its connection closed, so senders trickling bytes cannot hold the
   * server's sockets (docs/decisions.md, "HTTP"). @default `SVC_BODY_TIMEOUT_MS` || 30000
   */
  bodyTimeoutMs: number;
  /**
   * Check every JSON answer of the API against the schema its route documents; a mismatch answers
   * 500 and logs `response.schema_mismatch`. For tests: it costs a schema parse per answer.
   * @default `SVC_VALIDATE_RESPONSES` is `1` or `true`
   */
  validateResponses: boolean;
  /**
   * A PostgreSQL connection URL (`postgres://…` or `postgresql://…`): the store several servers can
   * share (docs/decisions.md, "PostgreSQL store"). Unset: the embedded file store under `home`. It may
   * hold a password, so it is never logged or shown. @default `SVC_DATABASE_URL`, unset
   */
  databaseUrl: string | undefined;
  /**
   * `SVC_RUN_LEASE_MS` (PostgreSQL store): how long a server's claim on the runs it executes holds
   * without a heartbeat; after it, another server marks them interrupted (docs/scaling.md).
   */
  runLeaseMs: number;
  /**
   * A webhook trigger's secret by the variable name its `secret_env` gives, from the environment
   * these settings were loaded from (after the workspace's env vars: docs/decisions.md, "Webhooks").
   * An unset or empty variable is `undefined`: never an empty key.
   */
  webhookSecret(name: string): string | undefined;
  /**
   * One trace per run, exported over OTLP/HTTP (docs/decisions.md, "Traces"): on when
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set (and
   * `OTEL_SDK_DISABLED` is not true); null otherwise, and then no OpenTelemetry module is loaded.
   * The SDK reads the other standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`, timeouts,
   * `OTEL_BSP_*`, `OTEL_TRACES_SAMPLER`, `OTEL_RESOURCE_ATTRIBUTES`).
   */
  tracing: TracingSettings | null;
}

/** Where and how a run's spans are sent (`Settings.tracing`). */
export interface TracingSettings {
  /** The traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  url: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` || `OTEL_EXPORTER_OTLP_PROTOCOL` || `http/protobuf` (the specification's default). */
  protocol: (typeof TRACE_PROTOCOLS)[number];
  /** `OTEL_SERVICE_NAME`; svc's spans say `svc` when it is unset. */
  serviceName: string | undefined;
}

/** The OTLP protocols svc exports with; `grpc` is not one of them (docs/decisions.md, "Traces"). */
export const TRACE_PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Variables every process has, whose values anyone can guess: a workflow's `secret_env` naming one
 * of them (`HOME`, `PATH`, svc's own settings) must not make deliveries signable by anyone.
 */
const NOT_SECRETS =
  /^(HOME|PATH|SHELL|USER|LOGNAME|PWD|OLDPWD|LANG|LANGUAGE|TERM|HOSTNAME|TMPDIR|TEMP|TMP|TZ|EDITOR|VISUAL|PAGER|MAIL|DISPLAY|CI|PORT|SHLVL|_|(LC|XDG|NODE|npm|SSH|GIT)_\w+|SVC_(?!WEBHOOK_)\w+)$/;

export class SettingsError extends Error {}

/** A variable name, or a prefix pattern ending in `*` (`LC_*`), as `env.allow` and `SVC_AGENT_ENV_ALLOW` take them. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

function envNames(env: NodeJS.ProcessEnv, name: string): string[] {
  const names = (env[name] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const bad = names.filter((part) => !ENV_NAME_PATTERN.test(part));
  if (bad.length) throw new SettingsError(`${name} takes variable names or PREFIX_* patterns, comma-separated (got '${bad.join("', '")}').`);
  return names;
}

function memoryBudget(env: NodeJS.ProcessEnv): number | null {
  const raw = env.SVC_MEMORY_BUDGET;
  if (raw === undefined || raw.trim() === '') return null;
  const bytes = parseSize(raw);
  if (bytes === null || bytes === 0) throw new SettingsError(`SVC_MEMORY_BUDGET must be a size of more than 0: ${SIZE_HINT} (got '${raw}').`);
  return bytes;
}

/** `Settings.tracing` from the standard OpenTelemetry variables; a value that cannot be used is an error, not a guess. */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return null;
  // The specification's rule: the signal's own endpoint is the URL; the general one gets the signal's path.
  const url = traces || `${base!.replace(/\/+$/, '')}/v1/traces`;
  const source = traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol))
    throw new SettingsError(`${source} must be an http:// or https:// URL (got '${traces || base}').`);
  const protocolSource = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolSource]?.trim() || 'http/protobuf').toLowerCase();
  if (!(TRACE_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new SettingsError(`${protocolSource} must be ${TRACE_PROTOCOLS.join(' or ')} for svc's traces (got '${env[protocolSource]}').`);
  }
  return { url, protocol: protocol as TracingSettings['protocol'], serviceName: env.OTEL_SERVICE_NAME?.trim() || undefined };
}

function sizeSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const bytes = parseSize(raw);
  if (bytes === null) throw new SettingsError(`${name} must be a size: ${SIZE_HINT} (got '${raw}').`);
  return bytes;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new SettingsError(`${name} must be an integer of at least ${min} (got '${raw}').`);
  }
  return value;
}

/** Node.js timers fire at once beyond 2^31-1 ms (~24.8 days): a longer limit would stop at once, not never. */
const MAX_TIMER_MS = 2_147_483_647;

function timerMs(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const value = positiveInt(env, name, fallback, min);
  if (value > MAX_TIMER_MS) throw new SettingsError(`${name} must be at most ${MAX_TIMER_MS} (ms, about 24 days; got '${env[name]}').`);
  return value;
}

/** Parses a port: an integer 0–65535 (0 asks the OS for any free port). */
export function parsePort(raw: string, source = 'PORT'): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value > 65535) {
    throw new SettingsError(`${source} must be a port number from 0 to 65535 (got '${raw}').`);
  }
  return value;
}

/** `SVC_SANDBOX`: `on` unless it says off; a value that is neither is an error, not a guess. */
export function sandboxSetting(raw: string | undefined): 'on' | 'off' {
  const value = (raw ?? '').trim().toLowerCase();
  if (['', 'on', '1', 'true'].includes(value)) return 'on';
  if (['off', '0', 'false'].includes(value)) return 'off';
  throw new SettingsError(`SVC_SANDBOX must be on or off (got '${raw}').`);
}

/** `SVC_SANDBOX_BASH`: off unless it says on; a value that is neither is an error, not a guess. */
export function sandboxBashSetting(raw: string | undefined): boolean {
  const value = (raw ?? '').trim().toLowerCase();
  if (['on', '1', 'true'].includes(value)) return true;
  if (['', 'off', '0', 'false'].includes(value)) return false;
  throw new SettingsError(`SVC_SANDBOX_BASH must be on or off (got '${raw}').`);
}

/** A PostgreSQL URL, checked for its scheme only: the driver reports anything else when it connects. */
export function databaseUrl(raw: string | undefined, source = 'SVC_DATABASE_URL'): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  // The value is not echoed: it may carry a password.
  if (!/^postgres(ql)?:\/\//i.test(raw.trim())) throw new SettingsError(`${source} must be a postgres:// or postgresql:// URL.`);
  return raw.trim();
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const level = (env.SVC_LOG_LEVEL || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new SettingsError(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got '${env.SVC_LOG_LEVEL}').`);
  }
  return {
    home: resolve(env.SVC_HOME || join(homedir(), '.svc')),
    host: env.SVC_HOST || '127.0.0.1',
    port: env.PORT ? parsePort(env.PORT) : undefined,
    maxConcurrentRuns: positiveInt(env, 'SVC_MAX_CONCURRENT_RUNS', 4),
    maxConcurrentAgents: positiveInt(env, 'SVC_MAX_CONCURRENT_AGENTS', 4),
    maxConcurrentConversations: positiveInt(env, 'SVC_MAX_CONCURRENT_CONVERSATIONS', 4),
    memoryBudgetBytes: memoryBudget(env),
    // 0 turns measuring off (the bench compares a chain with and without it); below 0 is refused by positiveInt.
    memorySampleMs: timerMs(env, 'SVC_MEMORY_SAMPLE_MS', 500, 0),
    cacheMaxBytes: sizeSetting(env, 'SVC_CACHE_MAX_BYTES', 10 * 1024 ** 3),
    agentFirstEventTimeoutMs: positiveInt(env, 'SVC_AGENT_FIRST_EVENT_TIMEOUT_MS', 60_000),
    agentIdleTimeoutMs: timerMs(env, 'SVC_AGENT_IDLE_TIMEOUT_MS', 600_000),
    usageLimitRetryMs: timerMs(env, 'SVC_USAGE_LIMIT_RETRY_MS', 1_800_000),
    autoResumeOnLimit: ['1', 'true'].includes((env.SVC_AUTO_RESUME_ON_LIMIT ?? '').toLowerCase()),
    agentEnvAllow: envNames(env, 'SVC_AGENT_ENV_ALLOW'),
    sandbox: sandboxSetting(env.SVC_SANDBOX),
    sandboxBash: sandboxBashSetting(env.SVC_SANDBOX_BASH),
    claudeBin: env.SVC_CLAUDE_BIN || 'claude',
    codexBin: env.SVC_CODEX_BIN || 'codex',
    ghBin: env.SVC_GH_BIN || 'gh',
    prPollMs: env.SVC_PR_POLL_MS ? timerMs(env, 'SVC_PR_POLL_MS', 30_000, 10) : undefined,
    prCheckStuckMs: positiveInt(env, 'SVC_PR_CHECK_STUCK_MS', 6 * 60 * 60_000),
    githubWebhookSecret: env.SVC_GITHUB_WEBHOOK_SECRET || undefined,
    searchPath: env.PATH ?? '',
    logLevel: level as LogLevel,
    gitTimeoutMs: positiveInt(env, 'SVC_GIT_TIMEOUT_MS', 300_000),
    bodyTimeoutMs: positiveInt(env, 'SVC_BODY_TIMEOUT_MS', 30_000),
    databaseUrl: databaseUrl(env.SVC_DATABASE_URL),
    runLeaseMs: positiveInt(env, 'SVC_RUN_LEASE_MS', 30_000, 300),
    validateResponses: ['1', 'true'].includes((env.SVC_VALIDATE_RESPONSES ?? '').toLowerCase()),
    webhookSecret: (name) => (!NOT_SECRETS.test(name) && Object.hasOwn(env, name) && env[name] ? env[name] : undefined),
    tracing: tracingSettings(env),
  };
}

const truthy = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';

/**
 * How the CLI treats the terminal, from the conventional variables (read here like every other
 * one): `NO_COLOR` (any value) and `CLICOLOR=0` turn colour off, `CLICOLOR_FORCE` turns it on; `CI`
 * and `SVC_PROMPT_DISABLED` forbid prompts and spinners; `SVC_DEBUG` prints stacks of unexpected
 * errors; `SVC_URL` names the server to talk to.
 */
export interface TerminalSettings {
  /** `NO_COLOR` set and non-empty. */
  noColor: boolean;
  /** `CLICOLOR_FORCE` truthy. */
  forceColor: boolean;
  /** `CLICOLOR=0`. */
  colorOff: boolean;
  /** `CI` truthy. */
  ci: boolean;
  /** `SVC_PROMPT_DISABLED` truthy. */
  promptDisabled: boolean;
  /** `SVC_DEBUG` set. */
  debug: boolean;
  /** `SVC_URL`: the server the CLI talks to (else the running server of `SVC_HOME`, else port `PORT`). */
  url: string | undefined;
  /** `BROWSER`: the program `svc open` starts with the dashboard's URL (else the system's default browser). */
  browser: string | undefined;
}

export function loadTerminalSettings(env: NodeJS.ProcessEnv = process.env): TerminalSettings {
  return {
    noColor: (env.NO_COLOR ?? '') !== '',
    forceColor: truthy(env.CLICOLOR_FORCE),
    colorOff: env.CLICOLOR === '0',
    ci: truthy(env.CI),
    promptDisabled: truthy(env.SVC_PROMPT_DISABLED),
    debug: Boolean(env.SVC_DEBUG),
    url: env.SVC_URL || undefined,
    browser: env.BROWSER || undefined,
  };
}
