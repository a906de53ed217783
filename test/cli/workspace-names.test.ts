// Workspaces named as people name them (issue 32): by name or by an unambiguous id prefix, in every
// command that takes one, through the built CLI against a real server on an ephemeral port; an
// ambiguous name or prefix exits non-zero listing the candidates; lists show the name first.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { gitProject, registerWorkspace } from '../helpers/registered-project.js';
import { cleanupAll, startServer, tempDir, type Json } from '../helpers/runs.js';
import { git, makeRepository } from '../helpers/git.js';

afterEach(cleanupAll);

/** A git repository whose folder (and so whose workspace) is called `name`. */
async function repositoryNamed(name: string): Promise<string> {
  const dir = join(await tempDir('svc-ws-name-'), name);
  await mkdir(dir);
  makeRepository(dir, { 'README.md': 'x\n' });
  return dir;
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};

describe('a workspace by name or by id prefix', () => {
  it('show, run --workspace, env, consent, envs and conversation new take a name or a unique prefix; the run and conversation keep the full id', async () => {
    const server = await startServer({ socket: true });
    const svc = (...args: string[]) => runCli(['--url', server.url, ...args], { env: { SVC_HOME: server.home } });
    const dir = await gitProject([{ name: 'where', description: 'prints the branch', nodes: [{ id: 'b', bash: 'git rev-parse --abbrev-ref HEAD' }] }]);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'workflows');
    const workspace = await registerWorkspace(server, dir);
    expect(workspace.name).toBe('repo');

    const byName = await svc('workspace', 'show', 'repo', '--json');
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout).id).toBe(workspace.id);
    const prefix = (workspace.id as string).slice(0, 'ws_'.length + 8);
    const byPrefix = await svc('workspace', 'show', prefix);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toMatch(new RegExp(`^name\\s+repo\\nid\\s+${workspace.id}\\n`));

    expect((await svc('workspace', 'env', 'set', 'repo', 'TOKEN=1')).code).toBe(0);
    expect((await svc('workspace', 'consent', prefix, '--allow')).code).toBe(0);
    const shown = JSON.parse((await svc('workspace', 'show', workspace.id, '--json')).stdout);
    expect(shown).toMatchObject({ env_keys: ['TOKEN'], allow_env_keys: true });

    const run = await svc('run', 'where', '--workspace', 'repo', '--cwd', dir, '--json');
    expect(run.code, run.stderr).toBe(0);
    const runView = JSON.parse(run.stdout) as Json;
    expect(runView.workspaceId).toBe(workspace.id);
    expect(runView.nodes.b.output).toBe(`svc/${runView.id}`);
    const envs = await svc('workspace', 'envs', prefix, '--json');
    expect(JSON.parse(envs.stdout).environments).toEqual([expect.objectContaining({ run_id: runView.id, workspace_id: workspace.id })]);

    const conversation = await svc('conversation', 'new', '--workspace', prefix, '--json');
    expect(conversation.code, conversation.stderr).toBe(0);
    const created = JSON.parse(conversation.stdout) as Json;
    expect(created.workspace_id).toBe(workspace.id);
    // The run's worker conversation is on the workspace too.
    const listed = await svc('conversation', 'list', '--workspace', 'repo', '--json');
    const onWorkspace = JSON.parse(listed.stdout).conversations as Json[];
    expect(onWorkspace).toHaveLength(2);
    expect(onWorkspace.map((c) => c.id)).toContain(created.id);

    const cleaned = await svc('workspace', 'cleanup', '--workspace', 'repo', '--json');
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect((await svc('workspace', 'cleanup', '--workspace', 'nothing-called-this')).code).toBe(1);

    const missing = await svc('workspace', 'show', 'nothing-called-this');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No workspace 'nothing-called-this'");
  });

  it('an ambiguous name or prefix exits 1 listing the candidates; the list shows names first', async () => {
    const server = await startServer({ socket: true });
    const svc = (...args: string[]) => runCli(['--url', server.url, ...args], { env: { SVC_HOME: server.home } });
    const first = await registerWorkspace(server, await repositoryNamed('app'));
    const second = await registerWorkspace(server, await repositoryNamed('app'));
    const other = await registerWorkspace(server, await repositoryNamed('tools'));

    const byName = await svc('workspace', 'show', 'app');
    expect(byName.code).toBe(1);
    expect(byName.stdout).toBe('');
    expect(byName.stderr).toContain("'app' matches 2 workspaces");
    expect(byName.stderr).toContain(`${first.id} (app, ${first.path})`);
    expect(byName.stderr).toContain(`${second.id} (app, ${second.path})`);
    const run = await svc('run', 'any', '--workspace', 'app', '--detach');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(first.id);

    // Ids are time-ordered: workspaces registered together share a long prefix.
    const shared = commonPrefix(first.id, other.id);
    expect(shared.length).toBeGreaterThanOrEqual('ws_'.length + 4);
    const byPrefix = await svc('workspace', 'rm', shared, '--yes');
    expect(byPrefix.code).toBe(1);
    expect(byPrefix.stderr).toContain(`matches 3 workspaces`);
    for (const w of [first, second, other]) expect(byPrefix.stderr).toContain(w.id);
    expect(JSON.parse((await svc('workspace', 'list', '--json')).stdout).total).toBe(3);

    // The api answers the same, with the candidates' ids in details.
    const answer = await fetch(`${server.url}/api/workspaces/app`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'ambiguous_workspace', details: { matches: [first.id, second.id] } });

    // Piped, the table is tab-separated rows without its header.
    const list = await svc('workspace', 'list');
    const rows = list.stdout.trim().split('\n');
    expect(rows.map((row) => row.split('\t').slice(0, 2))).toEqual([
      ['app', first.id],
      ['app', second.id],
      ['tools', other.id],
    ]);
  });
});
