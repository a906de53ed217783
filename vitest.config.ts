import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers, real subprocesses: generous per-test time, files isolated in their own processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: more workers than that only adds contention to process-heavy tests.
    maxWorkers: 2,
  },
});
