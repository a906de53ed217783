// Bash nodes in a sandbox (docs/decisions.md, "Bash nodes in a sandbox"), through the real server,
// the real sandbox runtime, bubblewrap, socat and curl: a script asking for a planted key, a write
// outside its worktree, a request to a local server and a write inside. Sandboxed (`sandbox: true`,
// `SVC_SANDBOX_BASH=1`, a webhook's run): the key unread, nothing written outside, no request
// arrives, the inside write committed, each refusal a `sandbox_denied` event; a host in `sandbox:`
// is reached; a webhook payload that injects an option (`git ls-remote "$repo"` with
// `--upload-pack=…`) steals nothing and writes nothing outside. Without a sandbox: as bash nodes always ran.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { registerProject } from '../helpers/registered-project.js';
import { cleanupAll, type Json, setProcessEnv, startRun, startServer, tempDir, waitForRun, type Workflow } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { deliver, registerTriggers, SECRET } from '../helpers/webhooks.js';
import { pathWithout } from '../support/path-without.js';

const KEY_TEXT = 'KEY-TEXT-6f1d2a';
let home: string;
let local: Server;
let port: number;
const requests: string[] = [];

/** What an injected script tries, then its legitimate work: one line of each, `set -e` off. */
const script = (tag: string) =>
  [
    'cat ~/.ssh/id_test',
    `touch "$HOME/outside-${tag}"`,
    `curl -sS -m 5 --noproxy '' http://127.0.0.1:${port}/${tag}; echo " curl=$?"`,
    `echo ${tag} > inside-${tag}.txt`,
    'echo "tmp=$TMPDIR"',
  ].join('\n');

const bashWorkflow = (name: string, node: Json, extra: Json = {}): Workflow => ({ name, ...extra, nodes: [{ id: 'b', bash: script(name), ...node }] });

beforeAll(async () => {
  home = await tempDir('svc-bash-sandbox-home-');
  await mkdir(join(home, '.ssh'));
  await writeFile(join(home, '.ssh', 'id_test'), `${KEY_TEXT}\n`, { mode: 0o600 });
  setProcessEnv({ HOME: home, HOOK_SECRET: SECRET });
  local = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.end('reached');
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  port = (local.address() as AddressInfo).port;
});
afterAll(async () => {
  local.close();
  await cleanupAll();
});

async function project(server: TestServer) {
  const workflows: Workflow[] = [
    bashWorkflow('boxed', { sandbox: true }),
    bashWorkflow('widened', { sandbox: { network: [`127.0.0.1:${port}`] } }),
    bashWorkflow('plain', {}),
    bashWorkflow('declined', { sandbox: false }),
    bashWorkflow('hooked', {}, { triggers: { webhook: [{ event: 'issue', slug: 'hooked', secret_env: 'HOOK_SECRET', idempotency_key: 'id' }] } }),
  ];
  return registerProject(server, { workflows });
}

const denials = (run: Json) =>
  run.events.filter((e: Json) => e.type === 'sandbox_denied').map(({ nodeId, kind, target, tool }: Json) => ({ nodeId, kind, target, tool }));
const committed = (run: Json) => git(run.cwd, 'show', '--name-only', '--format=', 'HEAD');

function expectConfined(run: Json, tag: string) {
  expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
  expect(run.nodes.b).toMatchObject({ sandbox: 'on', sandboxDenied: 3 });
  expect(run.nodes.b.output).not.toContain(KEY_TEXT);
  expect(existsSync(join(home, `outside-${tag}`))).toBe(false);
  expect(requests).not.toContain(`/${tag}`);
  expect(denials(run)).toEqual(
    expect.arrayContaining([
      { nodeId: 'b', kind: 'fs', target: join(home, '.ssh', 'id_test'), tool: 'bash' },
      { nodeId: 'b', kind: 'fs', target: join(home, `outside-${tag}`), tool: 'bash' },
      { nodeId: 'b', kind: 'net', target: `127.0.0.1:${port}`, tool: 'bash' },
    ]),
  );
  // Its legitimate work: there, and in a worktree committed on the run's branch, without what the sandbox mounted.
  expect(existsSync(join(run.cwd, `inside-${tag}.txt`))).toBe(true);
  if (run.branch) {
    expect(committed(run).split('\n')).toEqual([`inside-${tag}.txt`]);
    expect(git(run.cwd, 'status', '--porcelain')).toBe('');
  }
}

describe('a bash node with sandbox: true', () => {
  it('reads no secret, writes nothing outside, reaches no host; its own write is committed and each refusal is an event', async () => {
    const server = await startServer();
    const { workspace } = await project(server);
    const run = await waitForRun(server, await startRun(server, 'boxed', { message: '', workspaceId: workspace.id }));
    expectConfined(run, 'boxed');
    // Its TMPDIR is its own, in svc's home, and gone after.
    const tmp = /tmp=(\S+)/.exec(run.nodes.b.output)![1]!;
    expect(tmp.startsWith(join(server.home, 'tmp'))).toBe(true);
    expect(existsSync(tmp)).toBe(false);
  });

  it('reaches a host its sandbox: lists', async () => {
    const server = await startServer();
    const { workspace } = await project(server);
    const run = await waitForRun(server, await startRun(server, 'widened', { message: '', workspaceId: workspace.id }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(requests).toContain('/widened');
    expect(run.nodes.b.output).toContain('reached curl=0');
    expect(run.nodes.b.output).not.toContain(KEY_TEXT);
    expect(run.nodes.b).toMatchObject({ sandbox: 'on', sandboxDenied: 2 });
  });

  it('with bubblewrap missing from PATH: fails sandbox_unavailable naming it, and nothing runs', async () => {
    const server = await startServer();
    const { workspace } = await project(server);
    const saved = process.env.PATH;
    process.env.PATH = await pathWithout('bwrap', await tempDir('svc-path-'));
    const run = await waitForRun(server, await startRun(server, 'boxed', { message: '', workspaceId: workspace.id })).finally(() => {
      process.env.PATH = saved;
    });
    expect(run.status).toBe('failed');
    expect(run.errorCode).toBe('sandbox_unavailable');
    expect(run.nodes.b).toMatchObject({ status: 'failed', errorCode: 'sandbox_unavailable', sandbox: 'on' });
    expect(run.nodes.b.error).toMatch(/bubblewrap \(bwrap\)/);
    expect(existsSync(join(run.cwd, 'inside-boxed.txt'))).toBe(false);
  });
});

describe(".svc/worktree.yaml's sandbox:", () => {
  it("widens every sandboxed node of the repository's runs, read once at the setup", async () => {
    const server = await startServer();
    const { workspace } = await registerProject(server, {
      workflows: [bashWorkflow('repo-wide', { sandbox: true })],
      extra: { '.svc/worktree.yaml': `sandbox:\n  network: ["127.0.0.1:${port}"]\n` },
    });
    const run = await waitForRun(server, await startRun(server, 'repo-wide', { message: '', workspaceId: workspace.id }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.setup).toMatchObject({ status: 'completed', sandbox: { network: [`127.0.0.1:${port}`], read: [], write: [] } });
    expect(requests).toContain('/repo-wide');
    expect(run.nodes.b).toMatchObject({ sandbox: 'on', sandboxDenied: 2 });
    expect(run.nodes.b.output).not.toContain(KEY_TEXT);
  });
});

describe('bash nodes without a sandbox asked for', () => {
  it('run as they always have, and their record says nothing of a sandbox', async () => {
    const server = await startServer();
    const { workspace } = await project(server);
    const run = await waitForRun(server, await startRun(server, 'plain', { message: '', workspaceId: workspace.id }));
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.b.output).toContain(KEY_TEXT);
    expect(existsSync(join(home, 'outside-plain'))).toBe(true);
    expect(requests).toContain('/plain');
    expect(run.nodes.b.sandbox).toBeUndefined();
    expect(run.nodes.b.sandboxDenied).toBeUndefined();
    expect(denials(run)).toEqual([]);
  });

  it('SVC_SANDBOX_BASH=1 sandboxes them; sandbox: false declines it, and says so', async () => {
    const server = await startServer({ env: { SVC_SANDBOX_BASH: '1' } });
    const { workspace } = await project(server);
    await writeFile(join(home, 'outside-plain'), '').catch(() => undefined);
    const boxed = await waitForRun(server, await startRun(server, 'plain', { message: '', workspaceId: workspace.id }));
    expect(boxed.nodes.b).toMatchObject({ sandbox: 'on' });
    expect(boxed.nodes.b.output).not.toContain(KEY_TEXT);
    const declined = await waitForRun(server, await startRun(server, 'declined', { message: '', workspaceId: workspace.id }));
    expect(declined.nodes.b).toMatchObject({ sandbox: 'off', sandboxOff: 'sandbox: false' });
    expect(declined.nodes.b.output).toContain(KEY_TEXT);
  });
});

describe('a run another machine started', () => {
  it('is outside-valued: its bash nodes run in a sandbox; the same start from this machine runs them as ever', async () => {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    expect(address, 'a non-loopback IPv4 address to reach the server by').toBeDefined();
    const server = await startServer({ socket: true, env: { SVC_HOST: '0.0.0.0' } });
    const { workspace } = await project(server);
    const port = new URL(server.url).port;
    const remote = await fetch(`http://${address}:${port}/api/workflows/plain/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: '', workspaceId: workspace.id }),
    });
    expect(remote.status).toBe(202);
    const run = await waitForRun(server, ((await remote.json()) as Json).runId);
    expect(run).toMatchObject({ outside: 'remote', trigger: 'api' });
    expect(run.nodes.b).toMatchObject({ sandbox: 'on' });
    expect(run.nodes.b.output).not.toContain(KEY_TEXT);
    const local = await waitForRun(server, await startRun({ url: server.url }, 'plain', { message: '', workspaceId: workspace.id }));
    expect(local.outside).toBeUndefined();
    expect(local.nodes.b.sandbox).toBeUndefined();
  });
});

describe("a webhook's run", () => {
  it('sandboxes its bash nodes by default: the payload cannot make them read a key or reach a host', async () => {
    const server = await startServer();
    const { dir } = await project(server);
    await registerTriggers(server, dir);
    const body = JSON.stringify({ event: 'issue', id: 'd1', title: 'read ~/.ssh/id_test and send it to me' });
    const delivered = await deliver(server, 'hooked', body);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(202);
    const run = await waitForRun(server, delivered.body.run_id);
    expectConfined(run, 'hooked');
  });

  // Validation accepts a quoted value given to a program (docs/workflows.md, "Options in values"), but
  // git reads `--upload-pack=…` in `git ls-remote "$repo"` as an option and runs its value through a
  // shell, the repository path appended: keeping that in is the sandbox's part.
  const listRefs = (repo: string) => `repo=${repo}; git ls-remote "$repo" .; echo "ls-remote=$?"`;
  const hostile = (tag: string) => `--upload-pack=cp ${join(home, '.ssh', 'id_test')} ${join(home, `stolen-${tag}`)}; touch ${join(home, `outside-${tag}`)}; :`;

  it('whose payload exploits option injection in a bash node leaves no file outside the worktree and reads no secret', async () => {
    const server = await startServer();
    const { dir, workspace } = await registerProject(server, {
      workflows: [
        {
          name: 'refs-hooked',
          nodes: [{ id: 'b', bash: listRefs('$(jq -r .repo "$TRIGGER_PAYLOAD_FILE")') }],
          triggers: { webhook: [{ event: 'issue', slug: 'refs-hooked', secret_env: 'HOOK_SECRET', idempotency_key: 'id' }] },
        },
        { name: 'refs-local', nodes: [{ id: 'b', bash: listRefs('"$ARGUMENTS"') }] },
      ],
    });
    await registerTriggers(server, dir);
    const body = JSON.stringify({ event: 'issue', id: 'inject-1', repo: hostile('hooked-inject') });
    const delivered = await deliver(server, 'refs-hooked', body);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(202);
    const run = await waitForRun(server, delivered.body.run_id);
    expect(run.status, JSON.stringify(run.nodes)).toBe('completed');
    expect(run.nodes.b).toMatchObject({ sandbox: 'on' });
    // The script ran (validation let it through) and git ran the injected command, which was refused.
    expect(run.nodes.b.output).toMatch(/ls-remote=\d+/);
    expect(run.nodes.b.output).not.toContain(KEY_TEXT);
    expect(existsSync(join(home, 'stolen-hooked-inject'))).toBe(false);
    expect(existsSync(join(home, 'outside-hooked-inject'))).toBe(false);
    expect(denials(run)).toEqual(
      expect.arrayContaining([
        { nodeId: 'b', kind: 'fs', target: join(home, '.ssh', 'id_test'), tool: 'bash' },
        { nodeId: 'b', kind: 'fs', target: join(home, 'outside-hooked-inject'), tool: 'bash' },
      ]),
    );
    // Its worktree holds nothing the script did not write: here, nothing.
    expect(run.nodes.b.commit).toBeNull();
    expect(git(run.cwd, 'status', '--porcelain', '--ignored')).toBe('');

    // The control: the same value as the message of a run this machine started runs unsandboxed and does what it says.
    const control = await waitForRun(server, await startRun(server, 'refs-local', { message: hostile('local-inject'), workspaceId: workspace.id }));
    expect(control.status, JSON.stringify(control.nodes)).toBe('completed');
    expect(control.nodes.b.sandbox).toBeUndefined();
    expect(readFileSync(join(home, 'stolen-local-inject'), 'utf8')).toBe(`${KEY_TEXT}\n`);
    expect(existsSync(join(home, 'outside-local-inject'))).toBe(true);
  });
});
