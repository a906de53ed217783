// `svc serve` as a real subprocess, and the commands that talk to it: status, config, --json,
// port conflicts, a second server on the same home, graceful shutdown.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/shared/version.js';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { closedPort, killAllServes, spawnServe, svcEnv } from '../helpers/serve-process.js';

let dir: string;
let home: string;
let blocker: Server | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-serve-'));
  home = join(dir, 'home');
});
afterEach(async () => {
  await killAllServes();
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** GET a JSON body (any: the tests assert its shape). */
const getJson = async (url: string): Promise<any> => (await fetch(url)).json();

/** CLI env for this home, with the default URL on a closed port (so only the lock can lead to a server). */
const cliEnv = async (extra: Record<string, string> = {}) => ({ SVC_HOME: home, PORT: String(await closedPort()), ...extra });

describe('svc serve', () => {
  it('prints its URL, answers there, and writes it into the store lock', async () => {
    const serve = await spawnServe({ home });
    // The dashboard's address follows the listening line (issue 12), once both are written.
    await expect.poll(() => serve.stdout()).toBe(`svc ${packageVersion()} listening on ${serve.url} (home: ${home})\ndashboard: ${serve.url}/\n`);
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${serve.url}/health`)).json()).toEqual({ status: 'ok' });
    const lock = JSON.parse(await readFile(join(home, 'svc.lock'), 'utf8'));
    expect(lock).toMatchObject({ pid: serve.pid, kind: 'server', url: serve.url });
  });

  it('--json prints one JSON document describing the server', async () => {
    const child = spawn(process.execPath, [SVC_BIN, '--json', 'serve'], { env: svcEnv({ SVC_HOME: home, PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const info = JSON.parse(line);
      expect(info).toMatchObject({ pid: child.pid, home, version: packageVersion() });
      expect(info.url).toBe(`http://127.0.0.1:${info.port}`);
      expect((await fetch(`${info.url}/health`)).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('--port and --host are honoured', async () => {
    const port = await closedPort();
    const serve = await spawnServe({ home, args: ['--port', String(port), '--host', '127.0.0.1'] });
    expect(serve.url).toBe(`http://127.0.0.1:${port}`);
    const config = await getJson(`${serve.url}/api/config`);
    expect(config).toMatchObject({ host: '127.0.0.1', port });
  });

  it('exits 1 with a clear message when an explicit PORT is busy (no silent switch)', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    for (const how of [
      { env: { PORT: String(port) }, args: [] },
      { env: { PORT: '0' }, args: ['--port', String(port)] },
    ]) {
      const result = await runCli(['serve', ...how.args], { env: { SVC_HOME: home, ...how.env } });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`svc: Port ${port} on 127.0.0.1 is already in use.`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // It gave the store back.
      expect(existsSync(join(home, 'svc.lock'))).toBe(false);
    }
  });

  it('exits 2 (a settings error) naming SVC_AGENT_ENV_ALLOW when it lists something that is not a variable name', async () => {
    const result = await runCli(['serve'], { env: { SVC_HOME: home, PORT: '0', SVC_AGENT_ENV_ALLOW: 'AWS_*, not a name' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("svc: SVC_AGENT_ENV_ALLOW takes variable names or PREFIX_* patterns, comma-separated (got 'not a name').");
    expect(existsSync(join(home, 'svc.lock'))).toBe(false);
  });

  it('a second server on the same home exits 1 naming the first', async () => {
    const first = await spawnServe({ home });
    const second = await runCli(['serve'], { env: { SVC_HOME: home, PORT: '0' } });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`svc: Another svc server (pid ${first.pid}, ${first.url}) owns the store in ${home}.`);
    // The first is unharmed and still owns the lock.
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect(JSON.parse(await readFile(join(home, 'svc.lock'), 'utf8')).pid).toBe(first.pid);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('on %s stops gracefully: exit 0 and svc.lock removed', async (signal) => {
    const serve = await spawnServe({ home });
    expect(existsSync(join(home, 'svc.lock'))).toBe(true);
    // An idle keep-alive connection must not hold the process open.
    await fetch(`${serve.url}/health`, { keepalive: true });
    expect(await serve.stop(signal)).toEqual({ code: 0, signal: null });
    expect(existsSync(join(home, 'svc.lock'))).toBe(false);
    expect(serve.stderr()).toContain(`${signal} received`);
    // The home can be served again at once.
    const again = await spawnServe({ home });
    expect((await fetch(`${again.url}/health`)).status).toBe(200);
  });

  it('persists what it was told across a restart', async () => {
    const first = await spawnServe({ home });
    const patch = await fetch(`${first.url}/api/config/assistants`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ codex: { model: 'gpt-test' } }),
    });
    expect(patch.status).toBe(200);
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    const second = await spawnServe({ home });
    expect((await getJson(`${second.url}/api/config`)).assistants.codex).toEqual({ model: 'gpt-test', permissions: 'read' });
  });
});

describe('commands against a running server', () => {
  it('svc status exits 0 and describes the server found through the store lock', async () => {
    const serve = await spawnServe({ home });
    const result = await runCli(['status'], { env: await cliEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`svc ${packageVersion()} is running at ${serve.url}`);
    expect(result.stdout).toMatch(/runs:\s+0 running, 0 queued, at most 4 at once/);
    expect(result.stdout).toMatch(/agent: claude/);
    expect(result.stderr).toBe('');
    // And through an explicit --url, from anywhere.
    const other = await runCli(['status', '--url', serve.url], { env: { SVC_HOME: join(dir, 'elsewhere') } });
    expect(other.code).toBe(0);
  });

  it('svc status --json prints one parseable JSON document', async () => {
    const serve = await spawnServe({ home });
    const result = await runCli(['status', '--json'], { env: await cliEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(result.stdout);
    expect(doc).toMatchObject({ url: serve.url, status: 'ok', version: packageVersion(), runningWorkflows: 0 });
    expect(doc.adapter).toHaveProperty('available');
    expect(doc.concurrency).toEqual({ max: 4, running: 0, queued: 0 });
  });

  it('svc config show reads the server (its real port), as text and as --json', async () => {
    const serve = await spawnServe({ home });
    const port = Number(new URL(serve.url).port);
    const text = await runCli(['config', 'show'], { env: await cliEnv() });
    expect(text.code, text.stderr).toBe(0);
    // Piped: tab-separated rows, no header.
    expect(text.stdout).toContain(`port\t${port}\n`);
    expect(text.stdout).toContain(`home\t${home}\n`);
    expect(text.stdout).toContain('claude model\t(agent default)\n');
    const json = await runCli(['config', 'show', '--json'], { env: await cliEnv() });
    expect(JSON.parse(json.stdout)).toMatchObject({ port, home, host: '127.0.0.1', defaultAssistant: 'claude' });
  });

  it('neither /api/config nor `svc config show` reveals a secret from the server environment', async () => {
    const secret = 'sk-ant-subprocess-SECRET-4d1e';
    const serve = await spawnServe({ home, env: { ANTHROPIC_API_KEY: secret, OPENAI_API_KEY: `${secret}-openai` } });
    const body = await (await fetch(`${serve.url}/api/config`)).text();
    expect(body).not.toContain(secret);
    for (const args of [
      ['config', 'show'],
      ['config', 'show', '--json'],
    ]) {
      const result = await runCli(args, { env: await cliEnv({ ANTHROPIC_API_KEY: secret }) });
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('svc config set-model goes through the server, which holds the lock', async () => {
    const serve = await spawnServe({ home });
    const result = await runCli(['config', 'set-model', 'claude', 'opus'], { env: await cliEnv() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('claude now uses model opus.\n');
    expect((await getJson(`${serve.url}/api/config`)).assistants.claude).toEqual({ model: 'opus', permissions: 'read' });
    expect((await getJson(`${serve.url}/api/health`)).adapter.model).toBe('opus');
    const bad = await runCli(['config', 'set-model', 'gemini', 'pro'], { env: await cliEnv() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('svc: No assistant is named \'gemini\': to add one, give "kind": "acp" with a "command" or a "preset" (gemini, opencode)\n');
  });
});

describe('config offline, then a server', () => {
  it('svc config show works with no server, from the store', async () => {
    const text = await runCli(['config', 'show'], { env: await cliEnv() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('default assistant\tclaude\n');
    expect(text.stdout).toContain(`home\t${home}\n`);
    expect(text.stdout).toContain(`version\t${packageVersion()}\n`);
    const json = await runCli(['config', 'show', '--json'], { env: await cliEnv() });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ defaultAssistant: 'claude', assistants: { claude: { model: null }, codex: { model: null } }, home });
    // A read takes no lock.
    expect(existsSync(join(home, 'svc.lock'))).toBe(false);
  });

  it('svc config set-model offline is seen by a server started later on the same home', async () => {
    const set = await runCli(['config', 'set-model', 'claude', 'opus'], { env: await cliEnv() });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('claude now uses model opus.\n');
    expect(existsSync(join(home, 'svc.lock'))).toBe(false);
    const json = await runCli(['config', 'set-model', 'codex', 'gpt-5', '--json'], { env: await cliEnv() });
    expect(JSON.parse(json.stdout)).toEqual({
      defaultAssistant: 'claude',
      assistants: { claude: { model: 'opus', permissions: 'read' }, codex: { model: 'gpt-5', permissions: 'read' } },
    });

    const serve = await spawnServe({ home });
    const config = await getJson(`${serve.url}/api/config`);
    expect(config.assistants).toEqual({ claude: { model: 'opus', permissions: 'read' }, codex: { model: 'gpt-5', permissions: 'read' } });
    const shown = await runCli(['config', 'show', '--json'], { env: await cliEnv() });
    expect(JSON.parse(shown.stdout).port).toBe(Number(new URL(serve.url).port));
  });

  it('svc config set-model offline while another svc command writes the store exits 1 with a clear message', async () => {
    const { mkdir } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    await mkdir(home, { recursive: true });
    const holder = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/store-writer.mjs', import.meta.url)), 'hold', home, 'cli'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
        holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
      });
      const result = await runCli(['config', 'set-model', 'claude', 'opus'], { env: await cliEnv() });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`svc: Another svc command (pid ${holder.pid}) is writing the store; try again when it finishes.\n`);
      // Reading needs no lock.
      expect((await runCli(['config', 'show'], { env: await cliEnv() })).code).toBe(0);
    } finally {
      const gone = new Promise((resolve) => (holder.exitCode === null && holder.signalCode === null ? holder.once('exit', resolve) : resolve(null)));
      holder.kill('SIGKILL');
      await gone;
    }
  });
});
