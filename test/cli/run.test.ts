import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FAKE_CLAUDE } from '../helpers/runs.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

/**
 * `svc run` and the run lifecycle commands as a script would use them: exit codes are the
 * contract (0 completed, 1 failed, 3 cancelled/rejected, 4 paused, 2 usage, 5 no server).
 */
const WORKFLOWS: Record<string, string> = {
  'ok.yaml': `name: ok
description: succeeds
nodes:
  - id: greet
    bash: echo "hello $ARGUMENTS"
`,
  'boom.yaml': `name: boom
description: fails
nodes:
  - id: fine
    bash: echo fine
  - id: bad
    bash: echo oops >&2; exit 7
`,
  'gate.yaml': `name: gate
description: waits for approval
nodes:
  - id: build
    bash: echo built
  - id: ship
    approval: { message: "Ship $build.output?" }
    depends_on: [build]
  - id: after
    bash: echo "approved with $ship.output"
    depends_on: [ship]
`,
  'quiet.yaml': `name: quiet
description: a script that withholds the server's environment
nodes:
  - id: alone
    bash: echo "\${SVC_TEST_CANARY-withheld}"
    env: { inherit: false }
`,
  'agent.yaml': `name: agent
description: one agent node at edit
nodes:
  - id: ask
    prompt: "answer [fake:reply=ok]"
`,
  'violations.yaml': `name: violations
description: an agent whose sandbox refuses a request (recorded lines)
nodes:
  - id: net
    prompt: "go [fake:lines=$ARGUMENTS]"
`,
  'slow.yaml': `name: slow
description: runs long
nodes:
  - id: wait
    bash: sleep 60
`,
};

let project: Project;

beforeAll(async () => {
  project = await makeProject();
  for (const [file, text] of Object.entries(WORKFLOWS)) await project.write(file, text);
});
afterAll(() => project.remove());

const json = <T = any>(text: string): T => JSON.parse(text) as T;

describe('without a server: runs execute in the foreground on the store', () => {
  let home: string;
  beforeAll(async () => {
    home = await makeHome();
  });
  const svc = (args: string[]) => runCli(args, { env: { SVC_HOME: home, PORT: '1' }, cwd: project.dir });

  it('a completed run exits 0 and prints its progress as plain lines', async () => {
    const result = await svc(['run', 'ok', 'big', 'world', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[greet] hello big world');
    expect(result.stdout).toMatch(/^completed ok run_/m);
    expect(result.stdout).not.toMatch(/\x1b\[/);
  });

  it('--permissions gives the run its own cap: lower is recorded, higher is refused before any run is made, a bad level is a usage error', async () => {
    const lowered = await svc(['run', 'ok', 'x', '--permissions', 'read', '--json']);
    expect(lowered.code).toBe(0);
    expect(json(lowered.stdout)).toMatchObject({ status: 'completed', permissions: 'read' });

    const before = json((await svc(['runs', '--json'])).stdout).total;
    const raised = await svc(['run', 'ok', 'x', '--permissions', 'full']);
    expect(raised.code).not.toBe(0);
    expect(raised.stderr).toContain('permissions');
    expect(json((await svc(['runs', '--json'])).stdout).total).toBe(before);

    const bogus = await svc(['run', 'ok', '--permissions', 'root']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('--permissions is one of read, edit, full');
  });

  it('a failed run exits 1 and names the failing node', async () => {
    const result = await svc(['run', 'boom']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✖ bad exited with code 7');
    expect(result.stdout).toMatch(/^failed boom run_\S+ .*bad: exited with code 7/m);
  });

  it('a paused run exits 4; approve continues it in the foreground with the comment as output', async () => {
    const paused = await svc(['run', 'gate', '--wait', '--json']);
    expect(paused.code).toBe(4);
    const run = json(paused.stdout);
    expect(run.status).toBe('paused');
    const approved = await svc(['approve', run.id.slice(0, 14), '-m', 'LGTM', '--json']);
    expect(approved.code).toBe(0);
    expect(json(approved.stdout).status).toBe('completed');
    const shown = json((await svc(['runs', 'show', run.id, '--json'])).stdout);
    expect(shown.nodes.after.output).toBe('approved with LGTM');
  });

  it("runs show lists the names a node's process got beyond the base set, never values", async () => {
    const result = await runCli(['run', 'quiet', 'x', '--json'], { env: { SVC_HOME: home, PORT: '1', SVC_TEST_CANARY: 'secret' }, cwd: project.dir });
    expect(result.code).toBe(0);
    const run = json(result.stdout);
    expect(run.nodes.alone.output).toBe('withheld');
    const shown = await svc(['runs', 'show', run.id]);
    expect(shown.stdout).toContain('environment beyond the base set');
    expect(shown.stdout).toMatch(/^ {2}alone: .*\bARGUMENTS\b/m);
    expect(shown.stdout).not.toContain('SVC_TEST_CANARY');
  });

  it('runs show says unsandboxed, and why, for an agent node that ran outside its sandbox', async () => {
    const env = { SVC_HOME: home, PORT: '1', SVC_CLAUDE_BIN: FAKE_CLAUDE, SVC_SANDBOX: 'off' };
    const result = await runCli(['run', 'agent', '--json'], { env, cwd: project.dir });
    expect(result.code).toBe(0);
    const run = json(result.stdout);
    expect(run.nodes.ask).toMatchObject({ sandbox: 'off', sandboxOff: 'SVC_SANDBOX=off' });
    const shown = await svc(['runs', 'show', run.id]);
    expect(shown.stdout).toMatch(/^ask\tcompleted\t.*\tunsandboxed \(SVC_SANDBOX=off\)$/m);
  });

  it('svc run prints each sandbox refusal and counts them on its last line; runs show on the node', async () => {
    const stderr = '<sandbox_violations>\ndeny network-outbound 203.0.113.7:443 (host is not on the allow list)\n</sandbox_violations>';
    const lines = [
      { type: 'assistant', message: { id: 'm1', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'curl https://203.0.113.7' } }] } },
      { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'blocked', is_error: false }] }, tool_use_result: { stderr } },
    ];
    const file = join(home, 'violations.jsonl');
    await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    const env = { SVC_HOME: home, PORT: '1', SVC_CLAUDE_BIN: FAKE_CLAUDE };
    const result = await runCli(['run', 'violations', file], { env, cwd: project.dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('[net] sandbox denied: net 203.0.113.7:443 (Bash)');
    expect(result.stdout).toMatch(/^completed violations run_\S+ .*— its sandbox refused 1 call$/m);
    const id = /run_\S+/.exec(result.stdout)![0];
    expect((await svc(['runs', 'show', id])).stdout).toMatch(/^net\tcompleted\t.*\tsandbox refused 1$/m);
  });

  it('runs list reads the store and prints tab-separated lines when piped', async () => {
    const result = await svc(['runs', '--workflow', 'ok']);
    expect(result.code).toBe(0);
    const [line] = result.stdout.trim().split('\n');
    expect(line!.split('\t').slice(1, 4)).toEqual(['ok', 'completed', 'cli']);
  });

  it('--detach needs a server (exit 5)', async () => {
    const result = await svc(['run', 'ok', '--detach']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('--detach needs a running server');
  });

  it('an unknown workflow is an error naming it, exit 1', async () => {
    const result = await svc(['run', 'nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("No workflow named 'nope'");
  });
});

describe('with a server', () => {
  let home: string;
  let server: ServeProcess;
  beforeAll(async () => {
    home = await makeHome();
    server = await spawnServe({ home, cwd: project.dir });
  });
  afterAll(async () => {
    await server.stop();
  });
  afterEach(() => undefined);
  const svc = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { SVC_HOME: home, ...env }, cwd: project.dir });

  it('follows a run over SSE to its end; exit 0', async () => {
    const result = await svc(['run', 'ok', 'there', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[greet] hello there');
    expect(result.stdout).toMatch(/^completed ok run_/m);
  });

  it('--wait prints only the outcome; --json prints one document', async () => {
    const waited = await svc(['run', 'boom', '--wait']);
    expect(waited.code).toBe(1);
    expect(waited.stdout.trim().split('\n')).toHaveLength(1);
    const asJson = await svc(['run', 'boom', '--json']);
    expect(asJson.code).toBe(1);
    const run = json(asJson.stdout);
    expect(run).toMatchObject({ workflow: 'boom', status: 'failed', trigger: 'cli' });
    expect(run.nodes.fine.status).toBe('completed');
  });

  it('--detach prints the run id; watch --exit-status exits with the outcome', async () => {
    const detached = await svc(['run', 'boom', '--detach']);
    expect(detached.code).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^run_/);
    const watched = await svc(['watch', id, '--exit-status']);
    expect(watched.code).toBe(1);
    const plain = await svc(['watch', id]);
    expect(plain.code).toBe(0);
  });

  it('cancel stops a running run: the follower exits 3', async () => {
    const id = (await svc(['run', 'slow', '--detach'])).stdout.trim();
    const follower = svc(['watch', id, '--exit-status']);
    const cancelled = await svc(['cancel', id]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain('cancelled');
    expect((await follower).code).toBe(3);
    const again = await svc(['cancel', id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Cannot cancel a run that is cancelled');
  });

  it('reject ends a paused run cancelled: exit 0 for the command, 3 for the run', async () => {
    const paused = await svc(['run', 'gate', '--wait', '--json']);
    expect(paused.code).toBe(4);
    const { id } = json(paused.stdout);
    const rejected = await svc(['reject', id, '-r', 'not today']);
    expect(rejected.code).toBe(0);
    const run = json((await svc(['runs', 'show', id, '--json'])).stdout);
    expect(run).toMatchObject({ status: 'cancelled', rejectReason: 'not today' });
    expect((await svc(['watch', id, '--exit-status'])).code).toBe(3);
  });

  it('the gate message gets upstream outputs; approve with no id and no terminal is a usage error', async () => {
    const paused = json((await svc(['run', 'gate', '--wait', '--json'])).stdout);
    const detail = json((await svc(['runs', 'show', paused.id, '--json'])).stdout);
    const event = detail.events.find((e: { type: string }) => e.type === 'run_paused');
    expect(event.message).toBe('Ship built?');
    const noId = await svc(['approve']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('give the run id');
    expect((await svc(['approve', paused.id])).code).toBe(0);
    expect((await svc(['watch', paused.id, '--exit-status'])).code).toBe(0);
  });

  it('resume continues a failed run under the same id, skipping completed nodes', async () => {
    const marker = join(project.dir, 'flag');
    await project.write(
      'flaky.yaml',
      `name: flaky
description: fails until a flag exists
nodes:
  - id: once
    bash: echo ran >> "$WORKSPACE_DIR/once.log"
  - id: check
    bash: test -f "${marker}"
    depends_on: [once]
`,
    );
    const failed = json((await svc(['run', 'flaky', '--json'])).stdout);
    expect(failed.status).toBe('failed');
    await import('node:fs/promises').then((fs) => fs.writeFile(marker, ''));
    const resumed = await svc(['resume', failed.id, '--json']);
    expect(resumed.code).toBe(0);
    const run = json(resumed.stdout);
    expect(run.id).toBe(failed.id);
    expect(run.status).toBe('completed');
    expect((await readFile(join(project.dir, 'once.log'), 'utf8')).trim().split('\n')).toEqual(['ran']);
  });

  it('delete removes a finished run; unknown ids are errors', async () => {
    const id = (await svc(['run', 'ok', '--detach'])).stdout.trim();
    expect((await svc(['watch', id, '--exit-status'])).code).toBe(0);
    expect((await svc(['delete', id])).code).toBe(0);
    const gone = await svc(['runs', 'show', id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`No run '${id}'`);
  });

  it('a usage error (unknown status filter) exits 2', async () => {
    const result = await svc(['runs', '--status', 'bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown status bogus');
  });
});

describe('an explicit server that is not there', () => {
  it('exits 5 instead of falling back to the store', async () => {
    const home = await makeHome();
    const result = await runCli(['run', 'ok'], { env: { SVC_HOME: home, SVC_URL: 'http://127.0.0.1:1' }, cwd: project.dir });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('No svc server is reachable');
  });
});
