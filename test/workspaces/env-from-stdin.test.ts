// `svc workspace env set <id> KEY` takes the value from stdin, so it never shows on a command line.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, startRun, startServer, waitForRun } from '../helpers/runs.js';
import { runCli } from '../helpers/cli.js';
import { gitProject, registerWorkspace } from '../helpers/registered-project.js';

afterEach(cleanupAll);

describe('svc workspace env set', () => {
  it('takes a KEY alone with its value from stdin, so it never shows on the command line', async () => {
    const server = await startServer({ socket: true });
    const dir = await gitProject([{ name: 'echo-token', description: 'e', nodes: [{ id: 'a', bash: '[ "$TOKEN" = "from-stdin-value" ] && echo ok' }] }]);
    const workspace = await registerWorkspace(server, dir);
    const set = await runCli(['--url', server.url, 'workspace', 'env', 'set', workspace.id, 'TOKEN'], {
      env: { SVC_HOME: server.home },
      input: 'from-stdin-value\n',
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('from-stdin-value');
    const run = await waitForRun(server, await startRun(server, 'echo-token', { message: '', workspaceId: workspace.id }));
    expect(run.nodes.a.output).toBe('ok');
  });
});
