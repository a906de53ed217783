// GET /api/update-check: the spec's shape, and a source build makes no network request.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/shared/version.js';
import { runCli } from '../helpers/cli.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';

const RECORDER = fileURLToPath(new URL('../fixtures/record-connections.cjs', import.meta.url));

interface NetEntry {
  kind: string;
  detail: { host?: string; port?: number | string; path?: string };
}

const dirs: string[] = [];
afterEach(async () => {
  await killAllServes();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function readNetLog(file: string): Promise<NetEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as NetEntry);
}

/** Outgoing traffic: any client connection, or a name lookup of something other than an IP literal. */
const outgoing = (entries: NetEntry[]) => entries.filter((e) => e.kind === 'connect' || (e.kind.startsWith('dns') && !isIP(String(e.detail.host ?? ''))));

describe('GET /api/update-check', () => {
  it('answers updateAvailable:false with the package version, and opens no outgoing connection', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    dirs.push(dir);
    const netLog = join(dir, 'net.log');
    await writeFile(netLog, '');
    const serve = await spawnServe({ home: join(dir, 'home'), nodeArgs: ['--require', RECORDER], env: { SVC_TEST_NET_LOG: netLog } });

    const response = await fetch(`${serve.url}/api/update-check`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      updateAvailable: false,
      currentVersion: packageVersion(),
      latestVersion: packageVersion(),
      releaseUrl: expect.stringMatching(/^https:\/\//),
    });
    // Ask a few times, and let anything the handler might have started in the background happen.
    for (let i = 0; i < 3; i++) expect((await fetch(`${serve.url}/api/update-check`)).status).toBe(200);
    expect((await fetch(`${serve.url}/health`)).status).toBe(200);
    expect(await serve.stop()).toEqual({ code: 0, signal: null });

    expect(outgoing(await readNetLog(netLog))).toEqual([]);
  });

  it('the recorder really sees outgoing connections (control for the test above)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    dirs.push(dir);
    const netLog = join(dir, 'net.log');
    const serve = await spawnServe({ home: join(dir, 'home') });
    // `svc status` connects to the server: one outgoing connection, recorded.
    const result = await runCli(['status'], {
      env: { SVC_HOME: join(dir, 'home'), SVC_TEST_NET_LOG: netLog, NODE_OPTIONS: `--require ${RECORDER}` },
    });
    expect(result.code).toBe(0);
    const entries = outgoing(await readNetLog(netLog));
    expect(entries.some((e) => e.kind === 'connect' && Number(e.detail.port) === Number(new URL(serve.url).port))).toBe(true);
  });

  it('`svc update-check` answers the same offline, without opening any connection but the local probe', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    dirs.push(dir);
    const netLog = join(dir, 'net.log');
    const result = await runCli(['update-check', '--json'], {
      env: { SVC_HOME: join(dir, 'home'), SVC_URL: undefined, PORT: '1', SVC_TEST_NET_LOG: netLog, NODE_OPTIONS: `--require ${RECORDER}` },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ updateAvailable: false, currentVersion: packageVersion(), latestVersion: packageVersion() });
    // The only connection is the attempt to reach a local server before falling back to the store.
    for (const entry of outgoing(await readNetLog(netLog))) {
      expect(entry.kind).toBe('connect');
      expect(entry.detail.host).toBe('127.0.0.1');
    }
  });
});
