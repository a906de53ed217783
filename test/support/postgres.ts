/**
 * A throwaway PostgreSQL server for tests: `initdb` into a temp dir, `pg_ctl start` on a free
 * loopback port (its socket in the same temp dir, so nothing touches /var/run/postgresql), a fresh
 * database per `createDatabase()`, and everything stopped and removed by `stop()`.
 *
 * Binaries come from Debian's layout (/usr/lib/postgresql/<major>/bin, the newest major), else from
 * PATH. PostgreSQL refuses to run as root, so when we are root (CI, containers) every server
 * command runs as the `postgres` system user the Debian package creates (`runuser -u postgres`),
 * and the temp dir is handed to that user. No test is skipped when PostgreSQL is missing: `npm test`
 * and `.ci/run` install it (scripts/setup-test-system.sh), and a missing one fails with a message
 * saying how to install it.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

const SERVER_USER = 'postgres';

export interface TestPostgres {
  /** The temp dir holding the cluster, its socket and its log; gone after `stop()`. */
  readonly dir: string;
  /** The superuser connection URL of database `name` (default `postgres`). */
  url(name?: string): string;
  /** Creates an empty database with a name of its own; resolves to its connection URL. */
  createDatabase(): Promise<string>;
  stop(): void;
}

/** The directory holding initdb and pg_ctl: the newest Debian major version, else PATH's. */
export function findPostgresBin(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found) return found.slice(0, found.lastIndexOf('/'));
  throw new Error('PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH): apt-get install -y postgresql (npm test does it).');
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server binary, as the `postgres` user when we are root (initdb and postgres refuse root). */
function runServerCommand(bin: string, command: string, args: string[]): void {
  const file = join(bin, command);
  const [program, argv] = isRoot() ? ['runuser', ['-u', SERVER_USER, '--', file, ...args]] : [file, args];
  try {
    execFileSync(program, argv, { stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} failed: ${(stderr || stdout || (error as Error).message).trim()}`, { cause: error });
  }
}

function serverUserIds(): { uid: number; gid: number } {
  const line = execFileSync('getent', ['passwd', SERVER_USER], { encoding: 'utf8' }).trim();
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port free at the moment of asking; pg_ctl start is retried on another if it was taken meanwhile. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

let databaseCount = 0;

const CLUSTER_PREFIX = 'svc-pg-';
/** Names the test process a cluster belongs to, so a later run can tell a leftover from a live one. */
const OWNER_FILE = 'owner.pid';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function stopCluster(bin: string, data: string): void {
  // Immediate: nothing in a test cluster needs a clean shutdown, and it takes milliseconds.
  const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
  spawnSync(isRoot() ? 'runuser' : join(bin, 'pg_ctl'), isRoot() ? ['-u', SERVER_USER, '--', join(bin, 'pg_ctl'), ...args] : args, { stdio: 'ignore' });
}

/**
 * A test process killed outright (SIGKILL, a worker timeout) runs no exit handler, and its server
 * would live on: the clusters whose owner is gone are stopped and removed before a new one starts.
 * A dir without an owner yet is another process's cluster being made, unless it is old.
 */
function removeLeftoverClusters(bin: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(CLUSTER_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const owner = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) continue;
    } catch {
      const made = statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
      if (made === undefined || Date.now() - made < 10 * 60_000) continue;
    }
    if (existsSync(join(dir, 'data', 'postmaster.pid'))) stopCluster(bin, join(dir, 'data'));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  removeLeftoverClusters(bin);
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  if (isRoot()) {
    const { uid, gid } = serverUserIds();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    // trust on loopback and the private socket: the server lives only as long as the test file.
    runServerCommand(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync']);
  } catch (error) {
    remove();
    throw error;
  }

  let port = 0;
  let started = false;
  let lastError: unknown;
  for (let attempt = 0; attempt < 5 && !started; attempt++) {
    port = await freePort();
    // fsync off and no full-page writes: a crash only loses a database the test throws away anyway.
    const options = `-F -c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c full_page_writes=off -c max_connections=200`;
    try {
      runServerCommand(bin, 'pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
      started = true;
    } catch (error) {
      lastError = error;
    }
  }
  if (!started) {
    remove();
    throw lastError;
  }

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    stopCluster(bin, data);
    remove();
  };
  // A test process that dies without its afterAll still takes its server down with it.
  process.on('exit', stop);

  const url = (name = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${name}`;
  return {
    dir,
    url,
    async createDatabase() {
      const name = `svc_test_${process.pid}_${++databaseCount}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    stop,
  };
}

/**
 * One server for the test file that calls it (started before its tests, removed after them);
 * `createDatabase()` gives each test, or each suite, an empty database of its own.
 */
export function usePostgres(): { createDatabase(): Promise<string>; server(): TestPostgres } {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());
  const current = () => {
    if (!server) throw new Error('usePostgres(): the server is started in beforeAll; ask for a database inside a test or hook.');
    return server;
  };
  return { createDatabase: () => current().createDatabase(), server: current };
}

/** The rows one statement returns, on a connection of its own: what a test reads of the database behind its servers. */
export async function queryRows<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
