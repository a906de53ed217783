// Loaded before every test file (vitest.config.ts, setupFiles): a test that asserts nothing fails.
// A test whose point is that something does not throw says what it then expects of the result.
import { beforeEach, expect } from 'vitest';

beforeEach(() => {
  expect.hasAssertions();
});
