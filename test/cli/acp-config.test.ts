// `svc config set-acp`, `set-acp-env`, `remove-acp`, `config show` and `svc doctor` with acp
// assistants, through the built CLI on a store of its own (docs/contract.md, "ACP agents"): the
// doctor starts each one's command and asks it ACP's `initialize`.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';

const FAKE_ACP = fileURLToPath(new URL('../fixtures/fake-acp.mjs', import.meta.url));
afterAll(cleanupAll);

describe('acp assistants on the command line', () => {
  it('are added, shown without their values, checked by the doctor, and removed', async () => {
    const env = { SVC_HOME: await tempDir('svc-acp-cli-'), SVC_SANDBOX: 'off' };
    const added = await runCli(['config', 'set-acp', 'fake', '--default', '--', 'node', FAKE_ACP], { env });
    expect(added.stdout, added.stderr).toBe(`fake runs node ${FAKE_ACP} over ACP; it is the default assistant.\n`);
    const broken = await runCli(['config', 'set-acp', 'broken', '--', '/nonexistent/agent', '--acp'], { env });
    expect(broken.code).toBe(0);
    const valued = await runCli(['config', 'set-acp-env', 'fake', 'FAKE_TOKEN=s3cret-value'], { env });
    expect(valued.stdout).toBe("fake's agent gets FAKE_TOKEN.\n");
    const shown = await runCli(['config', 'show'], { env });
    expect(shown.stdout).toMatch(/fake acp command\s+node .*fake-acp\.mjs/);
    expect(shown.stdout).toMatch(/fake env\s+FAKE_TOKEN/);
    expect(shown.stdout).not.toContain('s3cret-value');
    const badPreset = await runCli(['config', 'set-acp', 'other', '--preset', 'nope'], { env });
    expect(badPreset.code).toBe(2);
    expect(badPreset.stderr).toContain('preset is one of gemini, opencode');
    const noCommand = await runCli(['config', 'set-acp', 'other'], { env });
    expect(noCommand.code).toBe(1);
    expect(noCommand.stderr).toContain("The acp assistant 'other' needs a command");

    const doctor = await runCli(['doctor', '--json'], { env, timeoutMs: 40_000 });
    const report = JSON.parse(doctor.stdout);
    expect(report.acpAssistants).toEqual([
      { name: 'fake', command: `node ${FAKE_ACP}`, version: 'fake-acp 1.0.0', initialize: { ok: true, agent: 'fake-acp 1.0.0', protocolVersion: 1 } },
      { name: 'broken', command: '/nonexistent/agent --acp', version: null, initialize: { ok: false, error: "'/nonexistent/agent' was not found" } },
    ]);
    expect(doctor.code).toBe(1);

    const removed = await runCli(['config', 'remove-acp', 'fake'], { env });
    expect(removed.stdout).toBe('fake is removed; the default assistant is claude.\n');
    const builtin = await runCli(['config', 'remove-acp', 'codex'], { env });
    expect(builtin.code).toBe(1);
    expect(builtin.stderr).toContain('codex is built in and cannot be removed');
  });
});
