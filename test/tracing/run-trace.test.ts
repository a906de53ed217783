// One trace per run (issue 33; docs/decisions.md, "Traces"): a real server exporting over OTLP/HTTP
// to a local receiver, in both protocols svc speaks. A run of a bash node, a prompt node (the fake
// Claude reporting tokens, a cost and a tool call) and an approval is one trace: the run's span,
// a span per node under it, the tool call's under its node, the approval an event; each node's
// process got TRACEPARENT naming its own span.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import {
  api,
  cleanupAll,
  projectWithWorkflows,
  readJsonLines,
  setProcessEnv,
  startRun,
  startServer,
  tempDir,
  waitFor,
  waitForRun,
  waitForStatus,
  type Json,
} from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

const WORKFLOW = {
  name: 'traced',
  nodes: [
    // Sleeps a little so its memory is sampled more than once; prints the TRACEPARENT it was given.
    { id: 'build', bash: 'echo "tp=$TRACEPARENT"; sleep 0.3' },
    { id: 'ask', prompt: 'Review it [fake:tool] [fake:cost=0.25] [fake:reply=LGTM]', depends_on: ['build'] },
    { id: 'gate', approval: { message: 'Ship it?' }, depends_on: ['ask'] },
    { id: 'after', bash: 'echo shipped', depends_on: ['gate'] },
  ],
};

/** The spans of one run, once its run span (ended last) has arrived. */
async function runSpans(receiver: OtlpReceiver, runId: string): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const spans = receiver.spans.filter((span) => span.attributes['svc.run.id'] === runId);
      return spans.some((span) => span.name.startsWith('invoke_workflow')) ? spans : undefined;
    },
    15_000,
    () => `spans received: ${JSON.stringify(receiver.spans.map((s) => s.name))}; problems: ${receiver.problems.join('; ')}`,
  );
}

const one = (spans: ReceivedSpan[], name: string) => {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name)).toEqual([name]);
  return found[0]!;
};

describe.each([
  { protocol: 'http/json', contentType: 'application/json' },
  { protocol: 'http/protobuf', contentType: 'application/x-protobuf' },
])('exported over $protocol', ({ protocol, contentType }) => {
  let receiver: OtlpReceiver;
  let server: TestServer;
  let project: string;
  let agentLog: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    agentLog = join(await tempDir('svc-trace-agent-'), 'claude.jsonl');
    setProcessEnv({ FAKE_CLAUDE_LOG: agentLog });
    project = await projectWithWorkflows([WORKFLOW]);
    server = await startServer({
      // One agent slot: two agent nodes at once make one wait for it.
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'svc-under-test',
        SVC_MAX_CONCURRENT_AGENTS: '1',
      },
    });
  });
  afterAll(async () => {
    await cleanupAll();
    await receiver.close();
  });

  it('a run with a bash node, a prompt node and an approval is one trace: spans, parents, attributes, events', async () => {
    const runId = await startRun(server, 'traced', { message: 'go', cwd: project });
    await waitForStatus(server, runId, 'paused');
    expect((await api(server, 'POST', `/api/workflows/runs/${runId}/approve`, { comment: 'ship' })).status).toBe(200);
    const run = await waitForRun(server, runId);
    expect(run.status).toBe('completed');

    const spans = await runSpans(receiver, runId);
    expect(receiver.problems).toEqual([]);
    expect(new Set(receiver.contentTypes)).toEqual(new Set([contentType]));
    // The run, its three process nodes (the gate runs nothing), its agent's one tool call.
    expect(spans.map((span) => span.name).sort()).toEqual(['bash after', 'bash build', 'execute_tool Bash', 'invoke_agent ask', 'invoke_workflow traced']);
    const [traceId] = new Set(spans.map((span) => span.traceId));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans[0]!.resource['service.name']).toBe('svc-under-test');

    const runSpan = one(spans, 'invoke_workflow traced');
    expect(runSpan.parentSpanId).toBe('');
    expect(runSpan.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': 'traced',
      'svc.run.id': runId,
      'svc.status': 'completed',
      'svc.cost_usd': 0.25,
    });
    expect(runSpan.attributes['svc.peak_rss_bytes']).toBe(run.peakRssBytes);
    expect(runSpan.attributes['svc.peak_rss_bytes']).toBeGreaterThan(0);
    // The approval, as an event of the run's span: the gate and the decision, never the comment.
    const approval = runSpan.events.filter((event) => event.name === 'approval');
    expect(approval).toHaveLength(1);
    expect(approval[0]!.attributes).toMatchObject({ 'svc.node.id': 'gate', 'svc.approval.decision': 'approved' });
    expect(JSON.stringify(approval[0]!.attributes)).not.toContain('ship');
    // The record keeps the trace, so a later process's spans join it.
    expect(run.traceparent).toBe(`00-${traceId}-${runSpan.spanId}-01`);

    const build = one(spans, 'bash build');
    expect(build.parentSpanId).toBe(runSpan.spanId);
    expect(build.attributes).toMatchObject({
      'svc.run.id': runId,
      'svc.node.id': 'build',
      'svc.node.kind': 'bash',
      'svc.status': 'completed',
      'svc.attempts': 1,
    });
    expect(build.attributes['svc.peak_rss_bytes']).toBe(run.nodes.build.peakRssBytes);
    expect(build.attributes['svc.peak_rss_bytes']).toBeGreaterThan(0);
    expect(build.attributes['gen_ai.operation.name']).toBeUndefined();
    // The script saw its own span's context.
    const seen = TRACEPARENT.exec(String(run.nodes.build.output).replace(/^tp=/, ''));
    expect(seen?.[1]).toBe(traceId);
    expect(seen?.[2]).toBe(build.spanId);

    const ask = one(spans, 'invoke_agent ask');
    expect(ask.parentSpanId).toBe(runSpan.spanId);
    expect(ask.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'ask',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'gen_ai.response.model': 'claude-fake-1',
      'gen_ai.usage.input_tokens': run.nodes.ask.tokens.input,
      'gen_ai.usage.output_tokens': run.nodes.ask.tokens.output,
      'svc.cost_usd': 0.25,
      'svc.node.id': 'ask',
      'svc.assistant': 'claude',
      'svc.status': 'completed',
    });
    expect(run.nodes.ask.tokens.input).toBeGreaterThan(0);
    expect(ask.attributes['svc.peak_rss_bytes']).toBe(run.nodes.ask.peakRssBytes);
    // The agent was given its node span's context too.
    const calls = readJsonLines(agentLog).filter((call: Json) => String(call.stdin).startsWith('Review it'));
    expect(calls.map((call: Json) => TRACEPARENT.exec(String(call.traceparent))?.[2])).toContain(ask.spanId);

    const tool = one(spans, 'execute_tool Bash');
    expect(tool.parentSpanId).toBe(ask.spanId);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Bash',
      'svc.tool.status': 'ok',
      'svc.node.id': 'ask',
    });
    // Its name and status, never what it was asked to run.
    expect(run.events.find((e: Json) => e.type === 'agent_tool')?.summary).toContain('fake-tool');
    expect(JSON.stringify(tool.attributes)).not.toContain('fake-tool');

    const after = one(spans, 'bash after');
    expect(after.parentSpanId).toBe(runSpan.spanId);
    expect(after.statusCode).toBe(0);
  });

  it('a failed node and its retry: a `retry` event on its span, the span and the run span in error', async () => {
    const dir = await projectWithWorkflows([{ name: 'flaky', nodes: [{ id: 'try', bash: 'exit 3', retry: { max_attempts: 2 } }] }]);
    const runId = await startRun(server, 'flaky', { message: '', cwd: dir });
    expect((await waitForRun(server, runId)).status).toBe('failed');
    const spans = await runSpans(receiver, runId);
    const node = one(spans, 'bash try');
    expect(node.statusCode).toBe(2);
    expect(node.attributes).toMatchObject({ 'svc.status': 'failed', 'error.type': 'exit_code', 'svc.attempts': 2 });
    expect(node.events.map((event) => [event.name, event.attributes])).toEqual([['retry', { 'svc.attempt': 1, 'error.type': 'exit_code' }]]);
    const runSpan = one(spans, 'invoke_workflow flaky');
    expect(runSpan.statusCode).toBe(2);
    expect(runSpan.attributes).toMatchObject({ 'svc.status': 'failed', 'error.type': 'exit_code' });
  });

  it('waits: a wait node is a `wait` event of the run span; an agent waiting for a slot, `wait` and `wait_end` on its node span', async () => {
    const dir = await projectWithWorkflows([
      {
        name: 'waiting',
        nodes: [
          { id: 'one', prompt: 'first [fake:slow=150]' },
          { id: 'two', prompt: 'second [fake:slow=150]' },
          { id: 'nap', wait: { for: '1s' }, depends_on: ['one', 'two'] },
        ],
      },
    ]);
    const runId = await startRun(server, 'waiting', { message: '', cwd: dir });
    expect((await waitForRun(server, runId, undefined, 30_000)).status).toBe('completed');
    const spans = await runSpans(receiver, runId);
    const slotEvents = ['invoke_agent one', 'invoke_agent two'].map((name) =>
      one(spans, name).events.map((event) => [event.name, event.attributes['svc.waiting_for']]),
    );
    // Exactly one of the two waited for the slot the other held.
    expect(slotEvents.filter((events) => events.length > 0)).toEqual([
      [
        ['wait', 'agent_slot'],
        ['wait_end', 'agent_slot'],
      ],
    ]);
    const runSpan = one(spans, 'invoke_workflow waiting');
    const waits = runSpan.events.filter((event) => event.name === 'wait');
    expect(waits).toHaveLength(1);
    expect(waits[0]!.attributes['svc.node.id']).toBe('nap');
    expect(String(waits[0]!.attributes['svc.wait.until'])).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
