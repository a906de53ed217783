// The time bounds of the dashboard's and the benchmarks' queries: a bound beyond what a date can hold
// (or a date that does not exist) is a 400, not a 500.
import { afterEach, expect, it } from 'vitest';
import { api, cleanupAll, startServer } from '../helpers/runs.js';

afterEach(cleanupAll);

it('answers 400 for time bounds beyond what a date can hold', async () => {
  const server = await startServer();
  for (const query of ['since=99999999999w', 'since=100000000000h', 'until=9999999999999999999999d', 'since=2026-02-31']) {
    const answer = await api(server, 'GET', `/api/dashboard/runs?${query}`);
    expect(answer.status, query).toBe(400);
  }
  expect((await api(server, 'GET', '/api/runs/benchmark?workflow=x&since=99999999999w')).body.error).toBe('invalid_since');
});
