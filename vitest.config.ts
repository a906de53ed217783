import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test must assert something (expect.hasAssertions before each test).
    setupFiles: ['test/helpers/setup.ts'],
    // Real servers, real subprocesses: generous per-test time, files isolated in their own processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: more workers than that only adds contention to process-heavy tests.
    maxWorkers: 2,
    // The fake agents are driven by FAKE_* variables in the server's environment, which an agent
    // no longer inherits (docs/decisions.md, "Why agents get a withheld environment"): the servers under test allow them, as an
    // operator allows what their agents need.
    env: { SVC_AGENT_ENV_ALLOW: 'FAKE_CLAUDE_*,FAKE_CODEX_*' },
  },
});
