// Terminal-dependent output: no ANSI escapes when piped or with NO_COLOR / --no-color (also on a
// real pseudo-terminal, via `script`), and `--json` is exactly one JSON document.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN } from '../helpers/cli.js';
import { closedPort, killAllServes, spawnServe, svcEnv } from '../helpers/serve-process.js';

const ESC = '\u001b';

let dir: string;
let home: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-out-'));
  home = join(dir, 'home');
  await spawnServe({ home });
});
afterAll(async () => {
  await killAllServes();
  await rm(dir, { recursive: true, force: true });
});

const env = async (extra: Record<string, string> = {}) => ({ SVC_HOME: home, PORT: String(await closedPort()), ...extra });

/** Commands whose output covers text, tables, status symbols, JSON and errors. */
const COMMANDS: string[][] = [
  ['status'],
  ['config', 'show'],
  ['update-check'],
  ['--help'],
  ['help', 'exit-codes'],
  ['frobnicate'],
  ['status', '--url', 'http://127.0.0.1:1'],
];

describe('piped (not a TTY)', () => {
  it('no command prints an ANSI escape, even with colour-forcing variables of other tools', async () => {
    for (const args of COMMANDS) {
      for (const extra of [{}, { FORCE_COLOR: '3' }] as Array<Record<string, string>>) {
        const result = await runCli(args, { env: await env(extra) });
        expect(result.stdout + result.stderr, args.join(' ')).not.toContain(ESC);
      }
    }
  });
});

describe('--json', () => {
  it('prints exactly one parseable JSON document on stdout for every command that has it', async () => {
    for (const args of [
      ['status', '--json'],
      ['--json', 'config', 'show'],
      ['update-check', '--json'],
      ['config', 'set-model', 'claude', 'haiku', '--json'],
    ]) {
      const result = await runCli(args, { env: await env() });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout.endsWith('\n')).toBe(true);
      expect(result.stdout.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(() => JSON.parse(result.stdout)).not.toThrow();
      expect(result.stdout).not.toContain(ESC);
    }
  });
});

describe('--json failures', () => {
  // Issue 32: a script reads svc's code from stdout, and the exit code is the documented one.
  it('print one JSON document { error, message, details? } on stdout with the exit code of the failure', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    for (const [args, error, code] of [
      [['runs', 'show', 'run_nothere', '--json'], 'run_not_found', 1],
      [['--json', 'workflow', 'show', 'no-such-workflow'], 'workflow_not_found', 1],
      [['runs', 'merge', 'run_x', '--squash', '--ff-only', '--json'], 'usage_error', 2],
      [['frobnicate', '--json'], 'usage_error', 2],
      [['watch', 'run_x', '--json', '--url', closed], 'server_unreachable', 5],
    ] as Array<[string[], string, number]>) {
      const result = await runCli(args, { env: await env() });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
      expect(result.stdout.trim().split('\n'), args.join(' ')).toHaveLength(1);
      const body = JSON.parse(result.stdout);
      expect(body, args.join(' ')).toMatchObject({ error, message: expect.any(String) });
      expect(
        Object.keys(body).every((key) => ['error', 'message', 'details'].includes(key)),
        JSON.stringify(body),
      ).toBe(true);
      expect(body.message).not.toMatch(/^error: /);
    }
  });

  it("a word after -- is the command's, not the flag", async () => {
    const result = await runCli(['runs', 'show', 'run_nothere', '--', '--json'], { env: await env() });
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
  });
});

/** `script` gives the command a real pseudo-terminal, where colour is on unless turned off. */
function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function runOnTTY(args: string[], extraEnv: Record<string, string>): Promise<string> {
  const command = [process.execPath, SVC_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: svcEnv(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

describe('on a terminal', () => {
  it('colours by default, and not with NO_COLOR (any non-empty value) or --no-color', async () => {
    if (!hasScript()) {
      // No pseudo-terminal available: the decision itself is still checked, in-process.
      const { colorEnabled } = await import('../../src/cli/io.js');
      expect(colorEnabled({}, true)).toBe(true);
      expect(colorEnabled({ NO_COLOR: '1' }, true)).toBe(false);
      expect(colorEnabled({ NO_COLOR: 'yes' }, true)).toBe(false);
      expect(colorEnabled({}, true, true)).toBe(false);
      return;
    }
    const base = await env();
    // Control: on a TTY the status line is coloured, so the checks below can see a difference.
    expect(await runOnTTY(['status'], base)).toContain(`${ESC}[`);
    for (const [args, extra] of [
      [['status'], { NO_COLOR: '1' }],
      [['status'], { NO_COLOR: 'true' }],
      [['status', '--no-color'], {}],
      [['config', 'show'], { NO_COLOR: '1' }],
      [['status'], { CLICOLOR: '0' }],
    ] as Array<[string[], Record<string, string>]>) {
      const output = await runOnTTY(args, { ...base, ...extra });
      expect(output, `${args.join(' ')} ${JSON.stringify(extra)}`).toContain('svc');
      expect(output, `${args.join(' ')} ${JSON.stringify(extra)}`).not.toContain(ESC);
    }
  });
});
