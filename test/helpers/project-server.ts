import { afterEach } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import { makeProject, type Project } from './workflow-project.js';

/**
 * A real server and throwaway projects per test, all stopped and removed after each test.
 * `server()` is the one `start` or `setup` started last; in process unless `socket` (server.ts).
 */
export function useServerWithProjects(defaults: { socket?: boolean } = {}) {
  let current: TestServer | undefined;
  const servers: TestServer[] = [];
  const projects: Project[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    for (const project of projects.splice(0)) await project.remove();
    current = undefined;
  });
  const start = async (options?: Parameters<typeof startTestServer>[0]) => {
    current = await startTestServer({ socket: defaults.socket, ...options });
    servers.push(current);
    return current;
  };
  /** A project removed after the test (`bare`: without `.svc/workflows/`). */
  const newProject = async (options: { bare?: boolean } = {}) => {
    const project = await makeProject(options);
    projects.push(project);
    return project;
  };
  return {
    start,
    newProject,
    /** Starts a server and makes a project. */
    async setup(options: { bare?: boolean } = {}) {
      await start();
      return newProject(options);
    },
    server(): TestServer {
      if (!current) throw new Error('start a server first (setup or start)');
      return current;
    },
  };
}
