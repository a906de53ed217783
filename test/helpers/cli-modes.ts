import { rm } from 'node:fs/promises';
import { afterEach, beforeEach } from 'vitest';
import { closedPort } from './serve-process.js';
import { makeHome, startTestServer, type TestServer } from './server.js';
import { makeProject, type Project } from './workflow-project.js';

/**
 * The two ways the CLI reaches the catalog, for `describe.each(modes)`: straight from the store
 * (no server; PORT points at a closed port), or through a running server. A fresh project and
 * SVC_HOME per test; everything is stopped and removed afterwards.
 */
export function useCliModes() {
  let project: Project | undefined;
  let home = '';
  let server: TestServer | undefined;
  beforeEach(async () => {
    project = await makeProject();
    home = await makeHome();
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    await project?.remove();
    await rm(home, { recursive: true, force: true });
  });
  const modes = [
    { mode: 'offline', env: async () => ({ SVC_HOME: home, PORT: String(await closedPort()) }) },
    {
      mode: 'through a server',
      env: async () => {
        server = await startTestServer({ socket: true });
        return { SVC_HOME: home, SVC_URL: server.url };
      },
    },
  ] as const;
  return { modes, project: () => project! };
}
