// Least-privilege environments (docs/contract.md, "Least-privilege environment"): a canary in the server's environment
// never reaches an agent unless the workflow or the node allows it; a bash node keeps the server's
// environment unless it says `env: { inherit: false }`; the run detail names what was given.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { cleanupAll, type Json, projectWithWorkflows, readJsonLines, setProcessEnv, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';

let server: TestServer;
let project: string;
let logFile: string;

/** The fake agent's recorded variable names, by the prompt it was sent. */
const envKeysByPrompt = (): Record<string, string[]> => Object.fromEntries(readJsonLines(logFile).map((call: Json) => [call.stdin, call.envKeys]));

beforeAll(async () => {
  logFile = join(await tempDir('svc-env-log-'), 'claude.jsonl');
  // SVC_TEST_OTHER stands for any other secret of the server's: allowing one name gives that one only.
  setProcessEnv({ SVC_TEST_CANARY: 'secret', SVC_TEST_OTHER: 'other', FAKE_CLAUDE_LOG: logFile, LC_TEST_LOCALE: 'C' });
  project = await projectWithWorkflows([
    {
      name: 'withheld',
      nodes: [
        { id: 'plain', prompt: 'plain' },
        { id: 'allowed', prompt: 'node allows', env: { allow: ['SVC_TEST_CANARY'] } },
      ],
    },
    { name: 'allowed-by-workflow', env: { allow: ['SVC_TEST_CAN*'] }, nodes: [{ id: 'ask', prompt: 'workflow allows' }] },
    {
      name: 'scripts',
      nodes: [
        { id: 'inherits', bash: 'printf %s "${SVC_TEST_CANARY-unset} ${SVC_TEST_OTHER-unset} $ARGUMENTS"' },
        { id: 'withholds', bash: 'printf %s "${SVC_TEST_CANARY-unset} ${SVC_TEST_OTHER-unset} $ARGUMENTS ${PATH:+path}"', env: { inherit: false } },
        { id: 'allows', bash: 'printf %s "${SVC_TEST_CANARY-unset} ${SVC_TEST_OTHER-unset}"', env: { inherit: false, allow: ['SVC_TEST_CANARY'] } },
      ],
    },
  ]);
  server = await startServer();
});

afterAll(cleanupAll);

describe('an agent node', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'withheld', { message: 'go', cwd: project }));
  });

  it('does not get a server variable nobody allowed, but the base set and the run variables', () => {
    expect(run.status).toBe('completed');
    const keys = envKeysByPrompt().plain!;
    expect(keys).not.toContain('SVC_TEST_CANARY');
    expect(keys).not.toContain('SVC_TEST_OTHER');
    expect(keys).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_TEST_LOCALE', 'ARGUMENTS', 'RUN_ID', 'WORKFLOW_NAME']));
  });

  it("gets the names the node's env.allow lists, and only those", () => {
    const keys = envKeysByPrompt()['node allows']!;
    expect(keys).toContain('SVC_TEST_CANARY');
    expect(keys).not.toContain('SVC_TEST_OTHER');
  });

  it('lists on the node the names given beyond the base set, never values', () => {
    expect(run.nodes.plain.envGiven).toEqual(expect.arrayContaining(['ARGUMENTS', 'RUN_ID']));
    expect(run.nodes.plain.envGiven).not.toContain('PATH');
    expect(run.nodes.plain.envGiven).not.toContain('SVC_TEST_CANARY');
    expect(run.nodes.allowed.envGiven).toContain('SVC_TEST_CANARY');
    expect(JSON.stringify(run.nodes)).not.toContain('secret');
  });

  it("gets the names the workflow's env.allow lists (a PREFIX_* pattern too)", async () => {
    const run = await waitForRun(server, await startRun(server, 'allowed-by-workflow', { message: '', cwd: project }));
    expect(run.status).toBe('completed');
    expect(envKeysByPrompt()['workflow allows']).toContain('SVC_TEST_CANARY');
    expect(envKeysByPrompt()['workflow allows']).not.toContain('SVC_TEST_OTHER');
    expect(run.nodes.ask.envGiven).toContain('SVC_TEST_CANARY');
  });
});

describe('a bash node', () => {
  let run: Json;
  beforeAll(async () => {
    run = await waitForRun(server, await startRun(server, 'scripts', { message: 'hi', cwd: project }));
  });

  it("keeps the server's environment by default, and lists nothing", () => {
    expect(run.status).toBe('completed');
    expect(run.nodes.inherits.output).toBe('secret other hi');
    expect(run.nodes.inherits.envGiven).toBeUndefined();
  });

  it('with env: { inherit: false } gets the base set and the run variables, not the canary', () => {
    expect(run.nodes.withholds.output).toBe('unset unset hi path');
    expect(run.nodes.withholds.envGiven).toContain('ARGUMENTS');
    expect(run.nodes.withholds.envGiven).not.toContain('SVC_TEST_CANARY');
  });

  it('with env: { inherit: false, allow } gets the allowed names only', () => {
    expect(run.nodes.allows.output).toBe('secret unset');
    expect(run.nodes.allows.envGiven).toContain('SVC_TEST_CANARY');
  });
});
