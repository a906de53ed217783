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
