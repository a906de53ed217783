// An agent's sandbox as svc says it to each CLI (docs/decisions.md, "Agents in a sandbox"): the
// decision on the node's record, the paths, Claude Code's `--settings`, Codex's permission profile,
// the check that the sandbox can start before the agent is spawned, and `SVC_SANDBOX`.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeSandboxSettings, codexSandboxArgs } from '../../src/agents/sandbox.js';
import { sandboxDecision, sandboxPolicy, SECRET_PATHS, type SandboxPlan } from '../../src/sandbox/index.js';
import { sandboxUnavailable } from '../../src/sandbox/index.js';
import { loadSettings, sandboxSetting } from '../../src/shared/settings.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';

afterAll(cleanupAll);

const plan = (extra: Partial<SandboxPlan> = {}): SandboxPlan => ({
  permissions: 'edit',
  cwd: '/svc/worktrees/run_1',
  home: '/home/u',
  svcHome: '/svc',
  artifactsDir: '/svc/data/runs/run_1/artifacts',
  tmpDir: '/svc/tmp/agent-run_1-a-x',
  gitDirs: ['/repo/.git/worktrees/run_1', '/repo/.git'],
  widening: undefined,
  ...extra,
});

describe('whether a node is sandboxed', () => {
  it('read and edit are, full is not, and SVC_SANDBOX=off turns it off with its reason', () => {
    expect(sandboxDecision('read', 'on')).toEqual({ sandbox: 'on' });
    expect(sandboxDecision('edit', 'on')).toEqual({ sandbox: 'on' });
    expect(sandboxDecision('full', 'on')).toEqual({ sandbox: 'off', sandboxOff: 'level full' });
    expect(sandboxDecision('edit', 'off')).toEqual({ sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' });
    expect(sandboxDecision('full', 'off')).toEqual({ sandbox: 'off', sandboxOff: 'level full' });
  });

  it('SVC_SANDBOX is on unless it says off; anything else is refused', () => {
    expect([undefined, '', 'on', '1', 'true', 'ON'].map(sandboxSetting)).toEqual(['on', 'on', 'on', 'on', 'on', 'on']);
    expect(['off', '0', 'false', 'Off'].map(sandboxSetting)).toEqual(['off', 'off', 'off', 'off']);
    expect(() => sandboxSetting('maybe')).toThrow(/SVC_SANDBOX must be on or off \(got 'maybe'\)/);
    expect(loadSettings({ SVC_SANDBOX: 'off' }).sandbox).toBe('off');
    expect(loadSettings({}).sandbox).toBe('on');
  });
});

describe('the paths of a sandbox', () => {
  it("edit: writes the worktree, the artifacts and its temporary directory; reads neither the user's secrets nor svc's home but its own run's", () => {
    const sandbox = sandboxPolicy(plan());
    expect(sandbox.write).toEqual(['/svc/worktrees/run_1', '/svc/data/runs/run_1/artifacts', '/svc/tmp/agent-run_1-a-x']);
    expect(sandbox.denyRead).toEqual([...SECRET_PATHS.map((path) => `/home/u/${path}`), '/svc']);
    expect(sandbox.denyRead).toEqual(
      expect.arrayContaining(['/home/u/.ssh', '/home/u/.aws', '/home/u/.config/gh', '/home/u/.netrc', '/home/u/.npmrc', '/home/u/.kube']),
    );
    expect(sandbox.allowRead).toEqual([
      '/svc/worktrees/run_1',
      '/svc/data/runs/run_1/artifacts',
      '/svc/tmp/agent-run_1-a-x',
      '/repo/.git/worktrees/run_1',
      '/repo/.git',
    ]);
    expect(sandbox.network).toEqual([]);
  });

  it('read: only its temporary directory is writable', () => {
    expect(sandboxPolicy(plan({ permissions: 'read' })).write).toEqual(['/svc/tmp/agent-run_1-a-x']);
  });

  it("widening: hosts as written, paths with ~ in the agent's HOME", () => {
    const sandbox = sandboxPolicy(plan({ widening: { network: ['*.github.com', '127.0.0.1:5432'], read: ['~/.cache/pip'], write: ['/var/cache/b'] } }));
    expect(sandbox.network).toEqual(['*.github.com', '127.0.0.1:5432']);
    expect(sandbox.allowRead).toEqual(expect.arrayContaining(['/home/u/.cache/pip', '/var/cache/b']));
    expect(sandbox.write).toEqual(expect.arrayContaining(['/var/cache/b']));
  });
});

describe("Claude Code's --settings", () => {
  it('enables its sandbox, failing rather than running commands outside it, with the paths and a strict allowlist', () => {
    const sandbox = sandboxPolicy(plan({ widening: { network: ['127.0.0.1:5432'], read: [], write: [] } }));
    expect(claudeSandboxSettings('edit', sandbox)).toEqual({
      sandbox: {
        enabled: true,
        failIfUnavailable: true,
        allowUnsandboxedCommands: false,
        filesystem: { denyRead: sandbox.denyRead, allowRead: sandbox.allowRead, allowWrite: sandbox.write },
        network: { allowedDomains: ['127.0.0.1:5432'], strictAllowlist: true },
      },
    });
  });

  it('read: a command still needs its permission (the sandbox does not allow Bash by itself)', () => {
    expect(claudeSandboxSettings('read', sandboxPolicy(plan({ permissions: 'read' }))).sandbox).toMatchObject({ autoAllowBashIfSandboxed: false });
  });
});

describe("Codex's permission profile", () => {
  const value = (args: string[], key: string) => args.find((arg) => arg.startsWith(`${key}=`))?.slice(key.length + 1);

  it('edit extends :workspace, read :read-only; filesystem entries from the widest path to the narrowest', () => {
    const args = codexSandboxArgs('edit', sandboxPolicy(plan()));
    expect(args.filter((_, i) => i % 2 === 0).every((flag) => flag === '-c')).toBe(true);
    expect(value(args, 'default_permissions')).toBe('"svc"');
    expect(value(args, 'permissions.svc.extends')).toBe('":workspace"');
    expect(value(codexSandboxArgs('read', sandboxPolicy(plan({ permissions: 'read' }))), 'permissions.svc.extends')).toBe('":read-only"');
    const files = value(args, 'permissions.svc.filesystem')!;
    expect(files.startsWith('{"/svc"="none",')).toBe(true);
    expect(files).toContain('"/home/u/.ssh"="none"');
    expect(files).toContain('"/svc/worktrees/run_1"="write"');
    expect(files).toContain('"/repo/.git"="read"');
    // No host allowed: its proxy still runs, allowing none (so a refusal is said, and counted).
    expect(value(args, 'permissions.svc.network.enabled')).toBe('true');
    expect(value(args, 'permissions.svc.network.domains')).toBe('{}');
    expect(value(args, 'features.network_proxy')).toBe('true');
    expect(value(args, 'permissions.svc.network.allow_local_binding')).toBeUndefined();
  });

  it('hosts without their port (codex does not enforce one), and loopback allowed only when named', () => {
    const named = codexSandboxArgs('edit', sandboxPolicy(plan({ widening: { network: ['127.0.0.1:5432', '*.github.com'], read: [], write: [] } })));
    expect(value(named, 'permissions.svc.network.enabled')).toBe('true');
    expect(value(named, 'permissions.svc.network.domains')).toBe('{"127.0.0.1"="allow","*.github.com"="allow"}');
    expect(value(named, 'permissions.svc.network.allow_local_binding')).toBe('true');
    expect(value(named, 'features.network_proxy')).toBe('true');
    const remote = codexSandboxArgs('edit', sandboxPolicy(plan({ widening: { network: ['registry.npmjs.org'], read: [], write: [] } })));
    expect(value(remote, 'permissions.svc.network.allow_local_binding')).toBeUndefined();
  });
});

describe('whether the sandbox can start', () => {
  /** A directory of stand-in programs, as a PATH. */
  async function binDir(programs: Record<string, string>): Promise<string> {
    const dir = await tempDir('svc-sandbox-bin-');
    await mkdir(dir, { recursive: true });
    for (const [name, script] of Object.entries(programs)) {
      await writeFile(join(dir, name), `#!/bin/sh\n${script}\n`);
      await chmod(join(dir, name), 0o755);
    }
    return dir;
  }

  it('claude needs bubblewrap and socat on PATH, and says which are missing', async () => {
    const both = await binDir({ bwrap: 'exit 0', socat: 'exit 0' });
    expect(await sandboxUnavailable({ agent: 'claude', path: both, platform: 'linux' })).toBeUndefined();
    expect(await sandboxUnavailable({ agent: 'claude', path: await binDir({ socat: 'exit 0' }), platform: 'linux' })).toMatch(
      /needs bubblewrap \(bwrap\) on PATH/,
    );
    expect(await sandboxUnavailable({ agent: 'claude', path: await binDir({ bwrap: 'exit 0' }), platform: 'linux' })).toMatch(/needs socat on PATH/);
    expect(await sandboxUnavailable({ agent: 'claude', path: await binDir({}), platform: 'linux' })).toMatch(/bubblewrap \(bwrap\) and socat/);
  });

  it('codex brings its own bubblewrap: neither is needed on PATH', async () => {
    expect(await sandboxUnavailable({ agent: 'codex', path: await binDir({}), platform: 'linux' })).toBeUndefined();
  });

  it('a bubblewrap that cannot make a sandbox (user namespaces refused) is the reason, in its own words', async () => {
    const refusing = await binDir({ bwrap: 'echo "bwrap: No permissions to create new namespace" >&2; exit 1', socat: 'exit 0' });
    for (const agent of ['claude', 'codex'] as const)
      expect(await sandboxUnavailable({ agent, path: refusing, platform: 'linux' })).toMatch(
        /bubblewrap cannot create a sandbox here .*No permissions to create new namespace/,
      );
  });

  it('macOS has its own sandbox; other systems have none svc can use', async () => {
    expect(await sandboxUnavailable({ agent: 'claude', path: '', platform: 'darwin' })).toBeUndefined();
    expect(await sandboxUnavailable({ agent: 'codex', path: '', platform: 'win32' })).toMatch(/not supported on win32/);
  });
});
