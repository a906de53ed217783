// The CLI as a user runs it (the built bin, a real subprocess, no TTY): version, help, usage
// errors, exit codes, and the commands that need no server.
import SwaggerParser from '@apidevtools/swagger-parser';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '../../src/server/routes/index.js';
import { packageVersion } from '../../src/shared/version.js';
import { runCli } from '../helpers/cli.js';
import { closedPort } from '../helpers/serve-process.js';

let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  // No server anywhere: a fresh home, and a default URL on a port nothing listens on.
  env = { SVC_HOME: join(dir, 'home'), PORT: String(await closedPort()) };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('svc --version and --help', () => {
  it('prints the package version and exits 0', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag], { env });
      expect(result).toEqual({ code: 0, stdout: `${packageVersion()}\n`, stderr: '' });
    }
  });

  it('--help lists the commands and exits 0', async () => {
    const result = await runCli(['--help'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    for (const command of ['serve', 'status', 'openapi', 'update-check', 'config', 'completion', 'help']) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    for (const option of ['--url', '--json', '--no-color', '--version']) expect(result.stdout).toContain(option);
    const sub = await runCli(['config', '--help'], { env });
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/show/);
    expect(sub.stdout).toMatch(/set-model/);
    expect((await runCli(['help', 'config'], { env })).stdout).toMatch(/set-model/);
  });
});

describe('usage errors exit 2', () => {
  it('an unknown command', async () => {
    const result = await runCli(['frobnicate'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(result.stdout).toBe('');
  });

  it('a near miss suggests the command', async () => {
    const result = await runCli(['statsu'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Did you mean status\?/);
  });

  it('an unknown option, a bad choice, a missing argument, a bad port', async () => {
    for (const args of [
      ['--frobnicate'],
      ['status', '--frobnicate'],
      ['completion', 'tcsh'],
      ['config', 'set-model', 'claude'],
      ['serve', '--port', 'abc'],
      ['help', 'no-such-topic'],
    ]) {
      const result = await runCli(args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.length).toBeGreaterThan(0);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('an empty model', async () => {
    const result = await runCli(['config', 'set-model', 'claude', ''], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/non-empty/);
  });
});

describe('svc help exit-codes', () => {
  it('documents every exit code', async () => {
    const result = await runCli(['help', 'exit-codes'], { env });
    expect(result.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 6]) expect(result.stdout).toMatch(new RegExp(`^\\s+${code}\\s+\\S`, 'm'));
    expect(result.stdout).toMatch(/5\s+.*server/);
  });

  it('says what the code does for 4: streaming `svc run` exits 4 at a gate too, not only with --wait (issue 32)', async () => {
    const help = (await runCli(['help', 'exit-codes'], { env })).stdout;
    const four = help.split('\n').find((line) => /^\s+4\s/.test(line))!;
    expect(four).not.toContain('(with --wait)');
    expect(four).toContain('svc run');
    const project = join(dir, 'project');
    await mkdir(join(project, '.svc', 'workflows'), { recursive: true });
    await writeFile(join(project, '.svc', 'workflows', 'gate.yaml'), 'name: gate\ndescription: asks\nnodes:\n  - id: ask\n    approval: { message: ship? }\n');
    const streamed = await runCli(['run', 'gate'], { env, cwd: project });
    expect(streamed.code, streamed.stderr).toBe(4);
    expect(streamed.stdout).toContain('paused at ask: ship?');
  });

  it('and the environment topic names every variable', async () => {
    const result = await runCli(['help', 'environment'], { env });
    expect(result.code).toBe(0);
    for (const name of [
      'PORT',
      'SVC_HOST',
      'SVC_HOME',
      'SVC_URL',
      'SVC_MAX_CONCURRENT_RUNS',
      'SVC_AGENT_FIRST_EVENT_TIMEOUT_MS',
      'SVC_AGENT_IDLE_TIMEOUT_MS',
      'SVC_CLAUDE_BIN',
      'SVC_CODEX_BIN',
      'SVC_LOG_LEVEL',
      'NO_COLOR',
    ]) {
      expect(result.stdout).toContain(name);
    }
  });
});

describe('svc status with no server', () => {
  it('exits 5 with a clear message', async () => {
    const result = await runCli(['status'], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `svc: No svc server is reachable at http://127.0.0.1:${env.PORT} (ECONNREFUSED). Start one with \`svc serve\`, or pass --url.\n`,
    );
  });

  it('exits 5 for an explicit --url or SVC_URL too, naming it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    for (const extra of [
      { args: ['--url', url], env: {} },
      { args: [], env: { SVC_URL: url } },
    ]) {
      const result = await runCli(['status', ...extra.args], { env: { ...env, ...extra.env } });
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(`No svc server is reachable at ${url}`);
    }
  });

  it('ignores a lock left by a dead server and exits 5', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(env.SVC_HOME!, { recursive: true });
    await writeFile(join(env.SVC_HOME!, 'svc.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, kind: 'server', url: 'http://127.0.0.1:1' }));
    const result = await runCli(['status'], { env });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`http://127.0.0.1:${env.PORT}`);
  });
});

describe('commands that need no server', () => {
  it('svc openapi prints the valid OpenAPI document with every route, and touches no store', async () => {
    const result = await runCli(['openapi'], { env });
    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout);
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    expect(doc.info.version).toBe(packageVersion());
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    for (const route of routes) expect(doc.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    expect(existsSync(env.SVC_HOME!)).toBe(false);
  });

  it('svc update-check answers from the package offline', async () => {
    const plain = await runCli(['update-check'], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(`svc ${packageVersion()} is up to date.\n`);
    const json = await runCli(['update-check', '--json'], { env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      updateAvailable: false,
      currentVersion: packageVersion(),
      latestVersion: packageVersion(),
      releaseUrl: expect.stringMatching(/^https:\/\//),
    });
  });

  it('svc config set-model with an unknown assistant fails cleanly offline (no "unexpected error")', async () => {
    const result = await runCli(['config', 'set-model', 'gemini', 'pro'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc: No assistant is named 'gemini': to add one, give "kind": "acp" with a "command" or a "preset" (gemini, opencode)\n`);
    // Nothing was written.
    const config = await readFile(join(env.SVC_HOME!, 'data', 'config.json'), 'utf8').catch(() => '');
    expect(config).not.toContain('gemini');
    expect(existsSync(join(env.SVC_HOME!, 'svc.lock'))).toBe(false);
  });
});
