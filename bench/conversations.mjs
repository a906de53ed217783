// Conversation benchmarks (issue 9), run by `npm run bench` through bench/run.mjs on the built code:
// - the orchestrator's overhead per message: send → `assistant_done` on the SSE stream, against the
//   fake agent's own run time (spawned directly with the same prompt);
// - the messages endpoint's latency (the newest page, and a page `before` a message in the middle)
//   on a 10,000-message conversation against a 100-message one: paging by cursor must not load the
//   whole history, so the ratio stays near 1 (target ≤ 1.5).
// Each row: { name, value, unit, reference?, ratio?, target? } (see bench/run.mjs).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { latency, median } from './measure.mjs';
import { fileURLToPath } from 'node:url';
import { EventSource } from 'eventsource';
import { startServer } from '../dist/server/listen.js';
import { loadSettings } from '../dist/shared/settings.js';
import { openConversationRepositories } from '../dist/conversations/index.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../test/fixtures/fake-claude', import.meta.url));
const MESSAGES = 30;

const round = (value, digits = 2) => Number(value.toFixed(digits));

/** The fake agent alone: spawn, prompt on stdin, wait for its exit. */
function agentAlone(prompt) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(FAKE_CLAUDE, ['-p', '--output-format', 'stream-json', '--verbose'], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('exit', () => resolve(performance.now() - started));
    child.stdin.end(prompt);
  });
}

async function json(base, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function orchestratorOverhead(base) {
  const conversation = await json(base, 'POST', '/api/conversations', {});
  const source = new EventSource(`${base}/api/stream/${conversation.id}`);
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = () => reject(new Error('stream did not open'));
  });
  // replyTo → resolver, or → true when the answer came before the send's 202 was read.
  const done = new Map();
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type !== 'assistant_done' && event.type !== 'agent_error') return;
    const waiting = done.get(event.replyTo);
    if (typeof waiting === 'function') waiting();
    else done.set(event.replyTo, true);
  };
  const perMessage = [];
  for (let i = 0; i < MESSAGES; i++) {
    const started = performance.now();
    const { messageId } = await json(base, 'POST', `/api/conversations/${conversation.id}/message`, { message: `bench message ${i}` });
    if (done.get(messageId) !== true) {
      const answered = new Promise((resolve) => done.set(messageId, resolve));
      await Promise.race([answered, new Promise((_, reject) => setTimeout(() => reject(new Error('no reply within 20 s')), 20_000))]);
    }
    perMessage.push(performance.now() - started);
  }
  source.close();
  const alone = [];
  for (let i = 0; i < MESSAGES; i++) alone.push(await agentAlone(`bench message ${i}`));
  const total = median(perMessage);
  const agent = median(alone);
  return [
    {
      name: 'conversation: send → assistant_done per message (fake agent)',
      value: round(total),
      unit: 'ms',
      reference: round(agent),
      ratio: round(total / agent),
    },
    { name: 'conversation: orchestrator overhead per message (beyond the agent run)', value: round(total - agent), unit: 'ms' },
  ];
}

/** Writes `count` messages straight through the repository (the server's store, before any read of it). */
async function seed(server, count) {
  const conversation = await json(server.url, 'POST', '/api/conversations', {});
  const { messages } = await openConversationRepositories(server.ctx.store);
  const at = new Date().toISOString();
  const ids = [];
  for (let i = 0; i < count; i += 500) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 500); j++) {
      batch.push(messages.append(conversation.id, { role: j % 2 ? 'assistant' : 'user', content: `message ${j} `.repeat(20), created_at: at, metadata: {} }));
    }
    ids.push(...(await Promise.all(batch)).map((m) => m.id));
  }
  return { id: conversation.id, middle: ids[Math.floor(ids.length / 2)] };
}

async function messagesLatency(server) {
  const small = await seed(server, 100);
  const large = await seed(server, 10_000);
  const rows = [];
  for (const [label, query] of [
    ['newest page', () => ''],
    ['page before a middle message', (c) => `&before=${c.middle}`],
  ]) {
    const reference = await latency(server.url, `/api/conversations/${small.id}/messages?limit=50${query(small)}`, { warmup: 20 });
    const value = await latency(server.url, `/api/conversations/${large.id}/messages?limit=50${query(large)}`, { warmup: 20 });
    rows.push({
      name: `conversation: GET messages (${label}), 10,000 vs 100 messages`,
      value: round(value),
      unit: 'ms',
      reference: round(reference),
      ratio: round(value / reference),
      target: '≤ 1.5',
    });
  }
  return rows;
}

export async function benchConversations() {
  const home = await mkdtemp(join(tmpdir(), 'svc-bench-conv-'));
  const settings = loadSettings({ ...process.env, SVC_HOME: home, PORT: '0', SVC_LOG_LEVEL: 'error', SVC_CLAUDE_BIN: FAKE_CLAUDE });
  const server = await startServer({ settings, cwd: home });
  try {
    return [...(await orchestratorOverhead(server.url)), ...(await messagesLatency(server))];
  } finally {
    await server.close();
    await rm(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await benchConversations()) console.log(row);
}
