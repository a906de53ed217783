// A database URL that cannot be used (docs/scaling.md, "How"): `svc serve` and the CLI's offline
// mode say so in one line and exit non-zero — never a stack trace, never a hang, never the URL or
// its password. Against a real cluster (a wrong password), a port nothing listens on, and a
// listener that accepts connections but never answers.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { closedPort } from '../helpers/serve-process.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  await cleanupAll();
});

const PASSWORD = 'hunter2-secret';

async function serve(url: string): Promise<CliResult> {
  return runCli(['serve', '--database-url', url], { env: { SVC_HOME: await tempDir('svc-pg-bad-'), PORT: '0' }, timeoutMs: 40_000 });
}

/** One line naming the database, the exit code given, nothing of the URL's secret, no stack. */
function expectClearRefusal(result: CliResult, reason: RegExp, code = 1): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(reason);
  expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
  expect(result.stderr + result.stdout).not.toContain(PASSWORD);
  expect(result.stdout).not.toContain('listening');
}

it("a wrong password: refused with the database's reason, the password never shown", async () => {
  const url = new URL(await postgres.createDatabase());
  const admin = new pg.Client({ connectionString: url.href });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE svc_pw LOGIN PASSWORD 'the-right-one'`);
    // The harness's cluster trusts every local connection: this role alone must give a password.
    const hba = join(postgres.server().dir, 'data', 'pg_hba.conf');
    await writeFile(hba, `host all svc_pw 127.0.0.1/32 scram-sha-256\n${await readFile(hba, 'utf8')}`);
    await admin.query('SELECT pg_reload_conf()');
  } finally {
    await admin.end();
  }
  url.username = 'svc_pw';
  url.password = PASSWORD;
  expectClearRefusal(await serve(url.href), /^svc: Cannot use the PostgreSQL database: password authentication failed for user "svc_pw"\.?\n$/);
}, 60_000);

it('nothing listening: refused at once, by svc serve, by a CLI command in offline mode and by svc migrate-store', async () => {
  const url = `postgres://svc:${PASSWORD}@127.0.0.1:${await closedPort()}/svc`;
  expectClearRefusal(await serve(url), /^svc: Cannot use the PostgreSQL database: connect ECONNREFUSED [\d.:]+\.?\n$/);
  const offline = await runCli(['runs', 'list'], { env: { SVC_HOME: await tempDir('svc-pg-bad-'), SVC_DATABASE_URL: url, PORT: String(await closedPort()) } });
  expectClearRefusal(offline, /^svc: Cannot use the PostgreSQL database: connect ECONNREFUSED/);
  const migrate = await runCli(['migrate-store', '--to', url], { env: { SVC_HOME: await tempDir('svc-pg-bad-'), PORT: String(await closedPort()) } });
  expectClearRefusal(migrate, /^svc: Cannot use the PostgreSQL database: connect ECONNREFUSED/);
}, 60_000);

it('a listener that never answers: refused after the connect timeout, not a hang', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket));
  servers.push(silent);
  silent.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  const result = await serve(`postgres://svc:${PASSWORD}@127.0.0.1:${port}/svc`);
  sockets.forEach((socket) => socket.destroy());
  expectClearRefusal(result, /^svc: Cannot use the PostgreSQL database: no answer within \d+ s\.?\n$/);
}, 60_000);

it('a URL of another kind: a usage error naming the option, not the URL', async () => {
  const result = await serve(`mysql://root:${PASSWORD}@127.0.0.1/svc`);
  expectClearRefusal(result, /^svc: --database-url must be a postgres:\/\/ or postgresql:\/\/ URL\.\n$/, 2);
});
