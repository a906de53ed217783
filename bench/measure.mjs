// What the bench modules measure with: the median of a sample, the median latency of one GET, and
// a watch on the dashboard stream that says when a run has settled.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** The middle value (the mean of the two middle ones for an even count); the input is not reordered. */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median milliseconds of `requests` sequential GETs of `path`, after `warmup` unmeasured ones. */
export async function latency(base, path, { warmup = 30, requests = 200 } = {}) {
  for (let i = 0; i < warmup; i++) await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
  const times = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await fetch(`${base}${path}`).then((r) => r.arrayBuffer());
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Resolves when the dashboard stream reports `runId` settled. The stream is opened before the run
 * starts (so no event is missed) and read as it arrives: no polling load on the server under test.
 */
export function watchRuns(url) {
  const waiters = new Map();
  const settled = new Map();
  let buffer = '';
  let req;
  const opened = new Promise((resolve, reject) => {
    req = request(`${url}/api/stream/__dashboard__`, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trim())
            .join('\n');
          if (!data) continue;
          let event;
          try {
            event = JSON.parse(data);
          } catch {
            continue;
          }
          const type = event.type ?? '';
          if (!['run_completed', 'run_failed', 'run_cancelled', 'run_abandoned'].includes(type)) continue;
          const runId = event.runId ?? event.data?.runId;
          settled.set(runId, type);
          waiters.get(runId)?.(type);
        }
      });
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
  return {
    opened,
    until: (runId) => (settled.has(runId) ? Promise.resolve(settled.get(runId)) : new Promise((resolve) => waiters.set(runId, resolve))),
    close: () => req.destroy(),
  };
}
