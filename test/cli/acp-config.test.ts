// `svc config set-acp`, `set-acp-env`, `remove-acp`, `config show` and `svc doctor` with acp
// assistants, through the built CLI on a store of its own (docs/contract.md, "ACP agents"): the
// doctor starts each one's command and asks it ACP's `initialize`.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { api, cleanupAll, isAlive, killQuietly, onCleanup, startServer, tempDir } from '../helpers/runs.js';
import { createConversation, send, waitForReply } from '../helpers/conversations.js';

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

/** An executable shell script in `dir`. */
async function script(dir: string, name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

describe('svc doctor and acp commands', () => {
  it('stops a command that ignores --version, with what it started, and goes on to the next check', async () => {
    const dir = await tempDir('svc-acp-doctor-');
    const pids = join(dir, 'pids');
    // Asked its version, it starts an agent that waits (a sleep in the background); otherwise it exits.
    const agent = await script(dir, 'agent', `if [ "$1" = --version ]; then sleep 1000 & echo $! >> ${pids}; wait; fi\nexit 1`);
    const env = { SVC_HOME: await tempDir('svc-acp-cli-'), SVC_SANDBOX: 'off' };
    expect((await runCli(['config', 'set-acp', 'stubborn', '--', agent, '--acp'], { env })).code).toBe(0);
    const doctor = await runCli(['doctor', '--json'], { env, timeoutMs: 60_000 });
    const sleeps = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    for (const pid of sleeps) onCleanup(() => killQuietly(pid, 'sleep'));
    expect(JSON.parse(doctor.stdout).acpAssistants).toEqual([
      { name: 'stubborn', command: `${agent} --acp`, version: null, initialize: { ok: false, error: expect.any(String) } },
    ]);
    expect(sleeps.filter(isAlive)).toEqual([]);
  }, 70_000);

  it("does not start another server's acp commands here unless --probe-acp says so", async () => {
    const dir = await tempDir('svc-acp-doctor-');
    const marker = join(dir, 'started-here');
    const agent = await script(dir, 'agent', `touch ${marker}\nexit 1`);
    const server = await startServer({ socket: true });
    onCleanup(() => server.stop());
    expect((await api(server, 'PATCH', '/api/config/assistants', { theirs: { kind: 'acp', command: [agent] } })).status).toBe(200);
    // This CLI's home is not the server's: the server is another one, as one on another machine is.
    const env = { SVC_HOME: await tempDir('svc-acp-cli-'), SVC_SANDBOX: 'off' };
    const skipped = await runCli(['doctor', '--json', '--url', server.url], { env, timeoutMs: 40_000 });
    const report = JSON.parse(skipped.stdout);
    expect(report.acpAssistants).toEqual([]);
    expect(report.acpAssistantsNotProbed).toMatch(/acp assistants of .* not checked \(theirs\).*--probe-acp/);
    expect(existsSync(marker)).toBe(false);
    const probed = await runCli(['doctor', '--json', '--probe-acp', '--url', server.url], { env, timeoutMs: 40_000 });
    expect(JSON.parse(probed.stdout).acpAssistants).toEqual([expect.objectContaining({ name: 'theirs', initialize: expect.objectContaining({ ok: false }) })]);
    expect(existsSync(marker)).toBe(true);
  }, 90_000);
});

describe('svc config set-acp-env without the value on the command line', () => {
  it('takes a KEY alone from stdin, or with --from-env from its environment, and the agent gets the value', async () => {
    const server = await startServer({ socket: true });
    onCleanup(() => server.stop());
    const env = { SVC_HOME: await tempDir('svc-acp-cli-'), FROM_ENV: 'value-from-env' };
    const at = ['--url', server.url];
    expect((await runCli(['config', 'set-acp', 'fake', ...at, '--', 'node', FAKE_ACP], { env })).code).toBe(0);
    const agentSays = async () => {
      const conversation = await createConversation(server, { assistant: 'fake' });
      return (await waitForReply(server, conversation.id, await send(server, conversation.id, 'env PIPED\nenv FROM_ENV\nenv PLAIN'))).content;
    };

    const piped = await runCli(['config', 'set-acp-env', 'fake', 'PIPED', ...at], { env, input: 'value-from-stdin\n' });
    expect(piped.stdout, piped.stderr).toBe("fake's agent gets PIPED.\n");
    expect(await agentSays()).toBe('PIPED=value-from-stdin\nFROM_ENV unset\nPLAIN unset\n');

    const fromEnv = await runCli(['config', 'set-acp-env', 'fake', 'FROM_ENV', 'PLAIN=given', '--from-env', ...at], { env });
    expect(fromEnv.stdout, fromEnv.stderr).toBe("fake's agent gets FROM_ENV, PLAIN.\n");
    expect(await agentSays()).toBe('PIPED unset\nFROM_ENV=value-from-env\nPLAIN=given\n');

    const unset = await runCli(['config', 'set-acp-env', 'fake', 'NOT_SET_ANYWHERE', '--from-env', ...at], { env });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("--from-env: NOT_SET_ANYWHERE is not set in this command's environment");
    const two = await runCli(['config', 'set-acp-env', 'fake', 'ONE', 'TWO', ...at], { env, input: 'x' });
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('only one KEY can take its value from stdin');
  }, 60_000);
});
