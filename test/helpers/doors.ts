import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import type { LocalApi } from '../../src/client/local-transport.js';
import { openLocalApi } from '../../src/runtime.js';
import { loadSettings } from '../../src/shared/settings.js';
import { makeHome, startTestServer, type TestServer } from './server.js';

/**
 * The two doors of the API for a test file: a real server over HTTP (on a socket), and the CLI's in-process API on a home
 * of its own (responses checked against their schemas), opened before the file's tests and closed
 * after them. Read `doors.server` and `doors.local` inside the tests.
 */
export function useBothDoors(): { readonly server: TestServer; readonly local: LocalApi } {
  let server: TestServer | undefined;
  let localHome: string | undefined;
  let local: LocalApi | undefined;
  beforeAll(async () => {
    server = await startTestServer({ socket: true });
    localHome = await makeHome();
    local = await openLocalApi(loadSettings({ SVC_HOME: localHome, SVC_LOG_LEVEL: 'warn', SVC_VALIDATE_RESPONSES: '1' }), false);
  });
  afterAll(async () => {
    await local?.close();
    if (localHome) await rm(localHome, { recursive: true, force: true });
    await server?.stop();
  });
  return {
    get server() {
      return server!;
    },
    get local() {
      return local!;
    },
  };
}
