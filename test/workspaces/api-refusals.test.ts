// What the workspace API and CLI refuse because it would reach another endpoint or leak: an id
// that is a path segment, bad env key names (and __proto__), credentials in a clone URL, a
// directory inside a repository (the env-leak gate would not see the root .env), an out-of-range age.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, cleanupAll, startServer } from '../helpers/runs.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { gitProject, registerWorkspace } from '../helpers/registered-project.js';

afterEach(cleanupAll);

describe('the API and CLI refuse what would reach another endpoint or leak', () => {
  it('`env unset <id> ..` is refused and deletes nothing; bad key names are 400, __proto__ is no key', async () => {
    const server = await startServer({ socket: true });
    const workspace = await registerWorkspace(server, await gitProject());
    const unset = await runSvcInProcess(['--url', server.url, 'workspace', 'env', 'unset', workspace.id, '..'], { SVC_HOME: server.home });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain("'..' is not a valid id or name");
    expect((await api(server, 'GET', `/api/workspaces/${workspace.id}`)).status).toBe(200);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/__proto__`)).status).toBe(400);
    expect((await api(server, 'DELETE', `/api/workspaces/${workspace.id}/env/CONSTRUCTOR`)).body.error).toBe('env_key_not_found');
  });

  it('refuses credentials in a clone URL without repeating them', async () => {
    const server = await startServer({ socket: true });
    for (const url of ['https://user:SECRETTOKEN@127.0.0.1:1/x.git', 'https://SECRETTOKEN@127.0.0.1:1/x.git', 'ssh://git:SECRETTOKEN@127.0.0.1:1/x.git']) {
      const answer = await api(server, 'POST', '/api/workspaces', { url });
      expect(answer.status, url).toBe(400);
      expect(JSON.stringify(answer.body)).not.toContain('SECRETTOKEN');
    }
  });

  it('refuses a directory inside a repository (the gate would not see the root .env) and an out-of-range age', async () => {
    const server = await startServer({ socket: true });
    const dir = await gitProject([], { '.env': 'ANTHROPIC_API_KEY=x\n' });
    await mkdir(join(dir, 'sub'));
    const answer = await api(server, 'POST', '/api/workspaces', { path: join(dir, 'sub') });
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(answer.body.message).toContain('register its top directory');
    expect((await api(server, 'POST', '/api/workspaces/cleanup', { olderThan: '99999999999d' })).status).toBe(400);
  });
});
