// `svc doctor` (issue 30): the built CLI on this machine, where bubblewrap, socat and ripgrep are
// installed (scripts/setup-test-system.sh), then with bwrap, or rg, hidden from PATH. No server, no store.
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closedPort } from '../helpers/serve-process.js';
import { pathWithout } from '../support/path-without.js';

interface Check {
  name: string;
  status: 'ok' | 'missing' | 'off';
  found: string;
  fix?: string;
  needed: boolean;
}

let dir: string;
let env: Record<string, string | undefined>;
/** A directory with an executable `claude` (an agent CLI that is found; doctor never runs it). */
let agentDir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-doctor-'));
  // A closed port: the command must not need a server, nor open the store.
  env = { SVC_HOME: join(dir, 'home'), PORT: String(await closedPort()), SVC_SANDBOX: undefined, SVC_CLAUDE_BIN: undefined, SVC_CODEX_BIN: undefined };
  agentDir = join(dir, 'agents');
  await mkdir(agentDir);
  await writeFile(join(agentDir, 'claude'), '#!/bin/sh\nexit 0\n');
  await chmod(join(agentDir, 'claude'), 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (stdout: string, name: string) => stdout.split('\n').find((l) => new RegExp(`^\\S+\\s+${name}\\s`).test(l)) ?? '';

describe('svc doctor', () => {
  it('with bubblewrap, socat and ripgrep on PATH: each check ok, exit 0, without a server or store', async () => {
    const result = await runCli(['doctor'], { env: { ...env, PATH: `${agentDir}${delimiter}${process.env.PATH}` } });
    expect(result.stderr).toBe('');
    expect(line(result.stdout, 'bubblewrap')).toMatch(/^ok\s+bubblewrap\s+\/\S*bwrap \(bubblewrap \d/);
    expect(line(result.stdout, 'socat')).toMatch(/^ok\s+socat\s+\/\S*socat \(socat \d/);
    expect(line(result.stdout, 'ripgrep')).toMatch(/^ok\s+ripgrep\s+\/\S*rg \(ripgrep \d/);
    expect(line(result.stdout, 'user namespaces')).toMatch(/^ok\s/);
    expect(line(result.stdout, 'claude')).toMatch(new RegExp(`^ok\\s+claude\\s+${join(agentDir, 'claude')}; its sandbox can start here`));
    expect(line(result.stdout, 'bash nodes')).toMatch(/^ok\s+bash nodes\s+their sandbox can start here/);
    expect(result.stdout).toContain('Agents at read and edit can run in their sandbox here');
    expect(result.stdout).toContain('can run in it here');
    expect(result.stdout).not.toContain('apt-get');
    expect(result.code).toBe(0);
    expect(existsSync(join(dir, 'home')), 'no store opened').toBe(false);
  });

  it('without bwrap on PATH: bubblewrap missing, the apt-get advice, the agent that needs it unavailable, exit 1', async () => {
    const path = await pathWithout('bwrap', join(dir, 'no-bwrap'));
    const result = await runCli(['doctor'], { env: { ...env, PATH: `${agentDir}${delimiter}${path}` } });
    expect(line(result.stdout, 'bubblewrap')).toMatch(/^missing\s+bubblewrap\s+no bwrap on PATH/);
    expect(result.stdout).toContain('sudo apt-get install bubblewrap');
    expect(line(result.stdout, 'socat')).toMatch(/^ok\s/);
    expect(line(result.stdout, 'claude')).toMatch(/^missing\s+claude\s.*its sandbox cannot start: .*bubblewrap \(bwrap\)/);
    expect(line(result.stdout, 'bash nodes')).toMatch(/^missing\s+bash nodes\s.*bubblewrap \(bwrap\)/);
    expect(result.stdout).toContain('Agents at read and edit cannot run in their sandbox here');
    expect(result.code).toBe(1);
  });

  it('without rg on PATH: ripgrep missing and bash nodes with it, the agents still ready, the apt-get advice, exit 1', async () => {
    // A webhook's run sandboxes its bash nodes without anyone asking: ripgrep is needed whenever the sandbox is on.
    const path = await pathWithout('rg', join(dir, 'no-rg'));
    const result = await runCli(['doctor'], { env: { ...env, PATH: `${agentDir}${delimiter}${path}` } });
    expect(line(result.stdout, 'ripgrep')).toMatch(/^missing\s+ripgrep\s+no rg on PATH/);
    expect(result.stdout).toContain('sudo apt-get install ripgrep');
    expect(line(result.stdout, 'bash nodes')).toMatch(/^missing\s+bash nodes\s.*sandbox_unavailable.*ripgrep \(rg\).*apt install bubblewrap socat ripgrep/);
    expect(line(result.stdout, 'claude')).toMatch(/^ok\s/);
    expect(result.stdout).toContain('Agents at read and edit can run in their sandbox here');
    expect(result.stdout).toContain('cannot run in it here: they would fail sandbox_unavailable');
    expect(result.code).toBe(1);

    const json = await runCli(['--json', 'doctor'], { env: { ...env, PATH: `${agentDir}${delimiter}${path}` } });
    const report = JSON.parse(json.stdout) as { ready: boolean; agentsReady: boolean; bashReady: boolean; install?: string; checks: Check[] };
    expect(report).toMatchObject({ ready: false, agentsReady: true, bashReady: false, install: 'sudo apt-get install ripgrep' });
    expect(report.checks.find((c) => c.name === 'ripgrep')).toMatchObject({ status: 'missing', needed: true });
    expect(report.checks.find((c) => c.name === 'bash nodes')).toMatchObject({ status: 'missing', needed: true });
  });

  it('--json: the checks as one document; SVC_SANDBOX=off says agents run unconfined and exits 0', async () => {
    const path = await pathWithout('bwrap', join(dir, 'no-bwrap-json'));
    const missing = await runCli(['--json', 'doctor'], { env: { ...env, PATH: path } });
    expect(missing.code).toBe(1);
    const report = JSON.parse(missing.stdout) as { ready: boolean; sandbox: string; install?: string; checks: Check[] };
    expect(report).toMatchObject({ ready: false, sandbox: 'on', install: 'sudo apt-get install bubblewrap' });
    const bwrap = report.checks.find((c) => c.name === 'bubblewrap');
    expect(bwrap).toMatchObject({ status: 'missing', needed: true });
    expect(bwrap?.fix).toContain('sudo apt-get install bubblewrap');
    expect(report.checks.find((c) => c.name === 'socat')?.status).toBe('ok');

    const off = await runCli(['--json', 'doctor'], { env: { ...env, PATH: path, SVC_SANDBOX: 'off' } });
    expect(off.code).toBe(0);
    const offReport = JSON.parse(off.stdout) as { ready: boolean; bashReady: boolean; checks: Check[] };
    expect(offReport).toMatchObject({ ready: true, bashReady: true });
    expect(offReport.checks[0]).toMatchObject({ name: 'sandbox', status: 'off' });
    expect(offReport.checks[0]?.found).toContain('unconfined');
    expect(offReport.checks.find((c) => c.name === 'bash nodes')).toMatchObject({ status: 'off', needed: false });

    const text = await runCli(['doctor'], { env: { ...env, PATH: path, SVC_SANDBOX: 'off' } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('SVC_SANDBOX=off: agents at read and edit run unconfined');
  });
});
