// `svc open` and the dashboard line of `svc serve`, as a user runs them.
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/cli.js';
import { projectWithWorkflows, waitForRun } from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';

let server: TestServer;
let dir: string;
let recorder: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-open-'));
  recorder = join(dir, 'browser.sh');
  // A stand-in for the user's browser: records the URL it was asked to open.
  await writeFile(recorder, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${join(dir, 'opened.txt')}'\n`);
  await chmod(recorder, 0o755);
  server = await startTestServer({ socket: true });
});
afterAll(async () => server?.stop());

describe('svc open', () => {
  it("starts $BROWSER with the dashboard's URL and prints it", async () => {
    const result = await runCli(['open', '--url', server.url], { env: { BROWSER: recorder } });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`${server.url}/`);
    await expect.poll(async () => readFile(join(dir, 'opened.txt'), 'utf8').catch(() => '')).toBe(`${server.url}/\n`);
  });

  it("opens a run's page by id prefix; --print opens nothing", async () => {
    const project = await projectWithWorkflows([{ name: 'one', nodes: [{ id: 'a', bash: 'true' }] }]);
    const started = await server.json('POST', '/api/workflows/one/run', { message: '', cwd: project });
    await waitForRun(server, started.body.runId);
    const result = await runCli(['open', started.body.runId.slice(0, 14), '--print', '--url', server.url], { env: { BROWSER: '/bin/false-browser-not-run' } });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(`${server.url}/#/runs/${started.body.runId}`);
  });

  it('exits 5 when no server runs, 1 when no browser starts', async () => {
    const none = await runCli(['open', '--url', 'http://127.0.0.1:9'], { env: { BROWSER: recorder } });
    expect(none.code).toBe(5);
    const broken = await runCli(['open', '--url', server.url], { env: { BROWSER: '/nonexistent/browser' } });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('Could not start a browser');
  });
});

describe('svc serve', () => {
  it('prints the dashboard URL, serves the page there, and svc open finds it through SVC_HOME', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-open-home-'));
    try {
      const serve = await spawnServe({ home });
      await expect.poll(() => serve.stdout()).toContain(`dashboard: ${serve.url}/`);
      const page = await fetch(`${serve.url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
      const opened = await runCli(['open', '--print'], { env: { SVC_HOME: home } });
      expect(opened.code).toBe(0);
      expect(opened.stdout.trim()).toBe(`${serve.url}/`);
    } finally {
      await killAllServes();
    }
  });

  it('gives a loopback dashboard address for a server bound to every address', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-open-home-'));
    try {
      const serve = await spawnServe({ home, env: { SVC_HOST: '0.0.0.0' } });
      const port = new URL(serve.url).port;
      await expect.poll(() => serve.stdout()).toContain(`dashboard: http://127.0.0.1:${port}/`);
      const opened = await runCli(['open', '--print'], { env: { SVC_HOME: home } });
      expect(opened.stdout.trim()).toBe(`http://127.0.0.1:${port}/`);
    } finally {
      await killAllServes();
    }
  });
});
