// Helpers of the tests that run workflows: project folders with workflow files, a server, the API
// as JSON, polling for run states, cleanups, and checks that processes are really gone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from './server.js';
import { makeProject } from './workflow-project.js';

export const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/fake-claude', import.meta.url));

export type Json = Record<string, any>;
export type Workflow = { name: string; description?: string; nodes: Json[]; [key: string]: unknown };

const cleanups: Array<() => Promise<unknown> | unknown> = [];

/** Registers something to undo in `cleanupAll` (call that from afterEach/afterAll). */
export function onCleanup(fn: () => Promise<unknown> | unknown): void {
  cleanups.push(fn);
}

/** Runs the registered cleanups, newest first; failures do not stop the others. */
export async function cleanupAll(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch {
      // best effort
    }
  }
}

/** A temporary directory removed by `cleanupAll`. */
export async function tempDir(prefix = 'svc-engine-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `.svc/workflows/<name>.yaml` for each workflow into `dir`. */
export async function writeWorkflows(dir: string, workflows: Workflow[]): Promise<void> {
  const folder = join(dir, '.svc', 'workflows');
  await mkdir(folder, { recursive: true });
  for (const workflow of workflows) {
    const full = { description: `test workflow ${workflow.name}`, ...workflow };
    await writeFile(join(folder, `${workflow.name}.yaml`), stringify(full));
  }
}

/** A temporary project directory (test/helpers/workflow-project.ts) holding the given workflows; removed by `cleanupAll`. */
export async function projectWithWorkflows(workflows: Workflow[]): Promise<string> {
  const project = await makeProject();
  onCleanup(() => project.remove());
  await writeWorkflows(project.dir, workflows);
  return project.dir;
}

/**
 * The real server with its own SVC_HOME and the fake Claude, answering in this process (`socket:
 * true`: on a loopback port, for what needs one; test/helpers/server.ts); stopped (and the home
 * removed) by `cleanupAll`.
 */
export async function startServer(options: { env?: Record<string, string>; home?: string; socket?: boolean } = {}): Promise<TestServer> {
  const server = await startTestServer({ env: { SVC_CLAUDE_BIN: FAKE_CLAUDE, ...options.env }, home: options.home, socket: options.socket });
  let stopped = false;
  const stop = server.stop.bind(server);
  server.stop = async (stopOptions) => {
    if (stopped) return;
    stopped = true;
    await stop(stopOptions);
  };
  onCleanup(() => server.stop());
  return server;
}

/** What answers the API: a test server (in process or on a socket: its own `fetch`), or a spawned `svc serve` (its URL). */
export type Target = Pick<TestServer, 'fetch'> | { url: string };

/** A JSON exchange with the API: in process when the target is, over HTTP otherwise. */
export async function api<T = any>(target: Target, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const init: RequestInit = {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  };
  const response = 'fetch' in target ? await target.fetch(path, init) : await fetch(`${target.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Starts a run and asserts the 202; returns the run id. */
export async function startRun(target: Target, workflow: string, body: Json): Promise<string> {
  const { status, body: answer } = await api(target, 'POST', `/api/workflows/${workflow}/run`, body);
  if (status !== 202) throw new Error(`start ${workflow} answered ${status}: ${JSON.stringify(answer)}`);
  return answer.runId as string;
}

export async function getRun(target: Target, id: string): Promise<Json> {
  const { status, body } = await api(target, 'GET', `/api/workflows/runs/${id}`);
  if (status !== 200) throw new Error(`GET run ${id} answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value; throws with `describe()` after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 20_000, describe: () => string = () => ''): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting ${describe()}`);
    await sleep(50);
  }
}

/** The event each resting state ends with; the status changes a moment before it is appended. */
const FINAL_EVENT: Record<string, string> = {
  completed: 'run_completed',
  failed: 'run_failed',
  cancelled: 'run_cancelled',
  abandoned: 'run_abandoned',
  paused: 'run_paused',
};

/** Terminal or paused, with its final event persisted. */
const isSettled = (run: Json) => FINAL_EVENT[run.status] !== undefined && (run.events as Json[]).at(-1)?.type === FINAL_EVENT[run.status];

/** Polls the run until `predicate` holds (default: settled); returns the run with events. */
export async function waitForRun(target: Target, id: string, predicate: (run: Json) => boolean = isSettled, timeoutMs = 25_000): Promise<Json> {
  let last: Json | undefined;
  await waitFor(
    async () => {
      last = await getRun(target, id);
      return predicate(last);
    },
    timeoutMs,
    () => `for run ${id}; last seen: ${JSON.stringify(last && { status: last.status, error: last.error, nodes: last.nodes, events: eventTypes(last) })}`,
  );
  return last!;
}

/** Until the run is in `status` (a resting state: with its final event persisted). */
export const waitForStatus = (target: Target, id: string, status: string, timeoutMs?: number) =>
  waitForRun(target, id, (run) => run.status === status && (FINAL_EVENT[status] === undefined || isSettled(run)), timeoutMs);

export const eventTypes = (run: Json) => (run.events as Json[]).map((e) => e.type as string);

/** `/proc/<pid>/stat` fields after the command name: state, ppid, pgrp, … */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process counts as alive unless it is gone or a zombie (dead, waiting to be reaped). */
export function isAlive(pid: number): boolean {
  if (existsSync('/proc')) {
    const stat = procStat(pid);
    return stat !== undefined && stat[0] !== 'Z';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Live (non-zombie) members of process group `pgid`. */
export function liveGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && Number(stat[2]) === pgid && stat[0] !== 'Z') members.push(Number(entry));
  }
  return members;
}

/** Waits until `pid` is dead; the kill grace is 5 s, so allow well beyond it. */
export const waitForDeath = (pid: number, timeoutMs = 15_000) =>
  waitFor(
    () => !isAlive(pid),
    timeoutMs,
    () => `for pid ${pid} to die`,
  );

/** Reads a pid written by a node (`echo $! > file`) once it is there. */
export async function readPidFile(file: string, timeoutMs = 20_000): Promise<number> {
  const text = await waitFor(
    () => (existsSync(file) ? readFileSync(file, 'utf8').trim() || undefined : undefined),
    timeoutMs,
    () => `for ${file}`,
  );
  return Number(text);
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * Kills a leftover process of a test (best effort), only if it is alive and still runs `command`:
 * its pid may have been reused by then, and other work shares this machine.
 */
export function killQuietly(pid: number | undefined, command: string): void {
  if (!pid || !isAlive(pid) || !commandLine(pid).includes(command)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Parsed JSON lines of `$SVC_HOME/logs/svc.log`. */
export function readLog(home: string): Json[] {
  return readJsonLines(join(home, 'logs', 'svc.log'));
}

/** Every JSON line of a file (svc.log, the fake agent's call log); none when it does not exist. */
export function readJsonLines(file: string): Json[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Json);
}

/** Sets environment variables of this (test) process; `cleanupAll` restores them. */
export function setProcessEnv(values: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  onCleanup(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
}

/** SIGKILLs what is left of a node's process group (best effort): what a crashed server leaves behind. */
export function killGroupQuietly(pgid: number | undefined): void {
  if (!pgid) return;
  for (const pid of liveGroupMembers(pgid)) {
    const command = commandLine(pid);
    if (command.startsWith('bash') || command.startsWith('sleep')) killQuietly(pid, command);
  }
}
