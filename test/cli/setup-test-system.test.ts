// scripts/setup-test-system.sh, which `npm test` and .ci/run start with: run in a real bash on a
// PATH of this test's own making. The components are stand-in executables there (what the script
// checks is only that they exist), and the machine's permission to install is simulated with an
// `id` and a `sudo` of our own; apt-get is a spy that records its calls. No real apt-get runs.
// The script also finds initdb under the machine's /usr/lib/postgresql, which a PATH cannot hide,
// so no assertion here depends on PostgreSQL being missing.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/setup-test-system.sh', import.meta.url));

/** A real program's path on the test's own PATH (bash itself, and the few tools the script uses). */
function which(program: string): string {
  const found = spawnSync('bash', ['-c', `type -P ${program}`], { encoding: 'utf8' }).stdout.trim();
  if (!found.startsWith('/')) throw new Error(`${program} is not on PATH`);
  return found;
}
const BASH = which('bash');
const SH = which('sh');
const TOOLS = ['env', 'mktemp', 'rm', 'tail', 'true'];

/** The components by their Debian package names. */
type Component = 'chromium' | 'postgresql' | 'bubblewrap' | 'socat' | 'ripgrep' | 'curl' | 'zsh' | 'fish';
/** Present in the tests below unless a test is about them: they behave as bubblewrap and socat do. */
const TOOLS_TOO: Component[] = ['ripgrep', 'curl', 'zsh', 'fish'];

interface Machine {
  /** The script's whole PATH. */
  bin: string;
  /** Where the stand-ins' calls are recorded, one line each. */
  calls: string;
  chromium: string;
}

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function executable(path: string, body: string): void {
  writeFileSync(path, `#!${SH}\n${body}\n`);
  chmodSync(path, 0o755);
}

/**
 * A machine with the given components (by their Debian package names) and the given way to install:
 * `root` (id -u is 0), `sudo` (not root, sudo -n works), `user` (not root, sudo wants a password);
 * `apt` false leaves apt-get out. The spy apt-get "installs" a package by putting its stand-in on PATH,
 * all but `aptLeavesOut`'s, which it reports installed and leaves missing.
 */
function machine(options: { present: Component[]; privilege: 'root' | 'sudo' | 'user'; apt?: boolean; aptLeavesOut?: Component }): Machine {
  const dir = mkdtempSync(join(tmpdir(), 'svc-setup-test-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  const calls = join(dir, 'calls.log');
  const chromium = join(dir, 'chromium');
  mkdirSync(bin);
  for (const tool of TOOLS) symlinkSync(which(tool), join(bin, tool));
  const standIns: Record<Component, string> = {
    chromium,
    postgresql: join(bin, 'initdb'),
    bubblewrap: join(bin, 'bwrap'),
    socat: join(bin, 'socat'),
    ripgrep: join(bin, 'rg'),
    curl: join(bin, 'curl'),
    zsh: join(bin, 'zsh'),
    fish: join(bin, 'fish'),
  };
  for (const component of options.present) executable(standIns[component], 'exit 0');

  executable(join(bin, 'id'), `[ "$1" = -u ] && echo ${options.privilege === 'root' ? 0 : 1000}`);
  executable(
    join(bin, 'sudo'),
    options.privilege === 'sudo'
      ? `echo "sudo $*" >> ${calls}\n[ "$1" = -n ] && shift\nexec "$@"`
      : `echo "sudo $*" >> ${calls}\necho "sudo: a password is required" >&2\nexit 1`,
  );
  if (options.apt !== false) {
    const installs = Object.entries(standIns)
      .filter(([pkg]) => pkg !== options.aptLeavesOut)
      .map(([pkg, path]) => `  ${pkg}) printf '#!${SH}\\nexit 0\\n' > ${path}; ${which('chmod')} +x ${path} ;;`)
      .join('\n');
    executable(
      join(bin, 'apt-get'),
      `echo "apt-get DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> ${calls}\n[ "$2" = install ] || exit 0\nfor pkg in "$@"; do case "$pkg" in\n${installs}\nesac; done`,
    );
  }
  return { bin, calls, chromium };
}

function runSetup(m: Machine, env: Record<string, string> = {}) {
  const result = spawnSync(BASH, [SCRIPT], {
    encoding: 'utf8',
    env: { PATH: m.bin, CI: 'true', SVC_TEST_CHROMIUM: m.chromium, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 20_000,
  });
  const calls = existsSync(m.calls) ? readFileSync(m.calls, 'utf8').trim().split('\n') : [];
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

const ALL: Component[] = ['chromium', 'postgresql', 'bubblewrap', 'socat', 'ripgrep', 'curl', 'zsh', 'fish'];

describe('scripts/setup-test-system.sh', () => {
  it('with everything present, says nothing, calls no apt-get and exits 0, even where it could install', () => {
    const result = runSetup(machine({ present: ALL, privilege: 'root' }));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '', calls: [] });
  });

  it('names the missing packages and the command to install them, and exits 1, when it may not install', () => {
    const result = runSetup(machine({ present: ['chromium', 'postgresql', ...TOOLS_TOO], privilege: 'user' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing bubblewrap socat, and installing needs root or sudo without a password');
    expect(result.stderr).toContain('sudo apt-get install bubblewrap socat\n');
    expect(result.stderr).toContain('bubblewrap (bwrap on PATH), socat (on PATH)');
    expect(result.stderr).not.toMatch(/chromium:|postgresql:/);
    // It asked sudo, without a prompt, whether it may; it never reached apt-get.
    expect(result.calls).toEqual(['sudo -n true']);
  });

  it('names the components by their own names where there is no apt-get', () => {
    const result = runSetup(machine({ present: ['chromium', 'bubblewrap', ...TOOLS_TOO], privilege: 'root', apt: false }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('there is no apt-get to install them with');
    expect(result.stderr).toContain('socat (on PATH)');
    expect(result.calls).toEqual([]);
  });

  it('installs what is missing with one apt-get update and one install, then finds it there and stays quiet the next time', () => {
    const m = machine({ present: ['chromium', 'postgresql', ...TOOLS_TOO], privilege: 'root' });
    const first = runSetup(m);
    expect(first.code, first.stderr).toBe(0);
    expect(first.calls).toEqual([
      'apt-get DEBIAN_FRONTEND=noninteractive -qq update',
      'apt-get DEBIAN_FRONTEND=noninteractive -qq install -y --no-install-recommends bubblewrap socat',
    ]);
    expect(first.stderr).toContain('installed bubblewrap socat');
    expect(runSetup(m)).toEqual({ code: 0, stdout: '', stderr: '', calls: first.calls });
  });

  it('fails, naming it, when a package apt-get installed still leaves its component missing', () => {
    const result = runSetup(machine({ present: ['chromium', 'postgresql', ...TOOLS_TOO], privilege: 'root', aptLeavesOut: 'socat' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('apt-get installed bubblewrap socat, yet socat still missing');
    expect(result.stderr).toContain('sudo apt-get install socat\n');
    expect(result.calls).toHaveLength(2);
  });

  it('installs through sudo -n when that needs no password', () => {
    const result = runSetup(machine({ present: ['chromium', 'postgresql', 'bubblewrap', ...TOOLS_TOO], privilege: 'sudo' }));
    expect(result.code, result.stderr).toBe(0);
    expect(result.calls).toEqual([
      'sudo -n true',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get -qq update',
      'apt-get DEBIAN_FRONTEND=noninteractive -qq update',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends socat',
      'apt-get DEBIAN_FRONTEND=noninteractive -qq install -y --no-install-recommends socat',
    ]);
  });

  it('SVC_TEST_SETUP=check and =skip never install; check fails, skip reports and lets the suite run', () => {
    const m = machine({ present: ['chromium', 'postgresql', 'bubblewrap', ...TOOLS_TOO], privilege: 'root' });
    const check = runSetup(m, { SVC_TEST_SETUP: 'check' });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('socat: needed by the sandbox tests');
    const skip = runSetup(m, { SVC_TEST_SETUP: 'skip' });
    expect(skip.code).toBe(0);
    expect(skip.stderr).toContain('the tests that need these fail (they are never skipped)');
    expect(skip.stderr).toContain('socat: needed by the sandbox tests');
    expect([...check.calls, ...skip.calls]).toEqual([]);
    expect(runSetup(m, { SVC_TEST_SETUP: 'yes' }).code).toBe(2);
  });

  it('does not install Debian chromium over a SVC_TEST_CHROMIUM that points nowhere', () => {
    const result = runSetup(machine({ present: ALL, privilege: 'root' }), { SVC_TEST_CHROMIUM: '/nonexistent/chromium' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SVC_TEST_CHROMIUM=/nonexistent/chromium is not an executable');
    expect(result.calls).toEqual([]);
  });
});
