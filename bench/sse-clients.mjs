// Worker thread for bench/engine.mjs: opens N EventSource clients on one SSE URL, on its own
// event loop (and core), so the server's loop is not also busy parsing 100 clients' frames.
// Messages in: { type: 'collect', runId, timeoutMs } → out: { type: 'result', ... }; 'close'.
import { parentPort, workerData } from 'node:worker_threads';
import { EventSource } from 'eventsource';

const { url, clients: count, openTimeoutMs } = workerData;

/** Per client: events of interest by `runId`, each as { seq, type, latencyMs }. */
const clients = [];
for (let i = 0; i < count; i++) {
  const client = { source: new EventSource(url), opened: false, errors: 0, byRun: new Map(), completed: new Set() };
  client.source.onopen = () => {
    client.opened = true;
    maybeReady();
  };
  client.source.onerror = () => {
    client.errors++;
  };
  client.source.onmessage = (message) => {
    const received = Date.now();
    const event = JSON.parse(message.data);
    if (typeof event.runId !== 'string') return;
    let seen = client.byRun.get(event.runId);
    if (!seen) client.byRun.set(event.runId, (seen = new Map()));
    // A reconnect replays with Last-Event-ID; count each seq once.
    if (!seen.has(event.seq)) seen.set(event.seq, received - Date.parse(event.at));
    if (event.type === 'run_completed' || event.type === 'run_failed') {
      client.completed.add(event.runId);
      checkCollect();
    }
  };
  clients.push(client);
}

let readySent = false;
function maybeReady() {
  if (readySent || !clients.every((c) => c.opened)) return;
  readySent = true;
  parentPort.postMessage({ type: 'ready' });
}
const openTimer = setTimeout(() => {
  if (!readySent) parentPort.postMessage({ type: 'error', message: `only ${clients.filter((c) => c.opened).length}/${count} SSE clients opened` });
}, openTimeoutMs);

let collecting; // { runId, timer }
function checkCollect(force = false) {
  if (!collecting) return;
  const { runId } = collecting;
  if (!force && !clients.every((c) => c.completed.has(runId))) return;
  clearTimeout(collecting.timer);
  collecting = undefined;
  const latencies = [];
  const perClient = clients.map((c) => {
    const seen = c.byRun.get(runId) ?? new Map();
    for (const latency of seen.values()) latencies.push(latency);
    return seen.size;
  });
  parentPort.postMessage({
    type: 'result',
    runId,
    timedOut: force,
    perClient,
    errors: clients.reduce((n, c) => n + c.errors, 0),
    latencies,
  });
}

parentPort.on('message', (message) => {
  if (message.type === 'collect') {
    collecting = { runId: message.runId, timer: setTimeout(() => checkCollect(true), message.timeoutMs) };
    checkCollect();
  } else if (message.type === 'close') {
    clearTimeout(openTimer);
    for (const c of clients) c.source.close();
    parentPort.close();
  }
});
