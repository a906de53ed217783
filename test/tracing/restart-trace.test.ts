// A run's trace outlives the process (docs/decisions.md, "Traces"): when svc stops while a run is
// paused, the run's span so far is sent as the server stops, and the next server's span for the
// run is a child of that one, in the same trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { api, cleanupAll, projectWithWorkflows, startRun, startServer, waitFor, waitForRun, waitForStatus } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await cleanupAll();
  await receiver.close();
});

const tracingEnv = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });

/** The spans of a run received so far, once `done` says they are all there. */
function spansOf(runId: string, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  return waitFor(
    () => {
      const spans = receiver.spans.filter((span) => span.attributes['svc.run.id'] === runId);
      return done(spans) ? spans : undefined;
    },
    15_000,
    () => `spans received: ${JSON.stringify(receiver.spans.map((s) => [s.name, s.attributes['svc.run.id']]))}; problems: ${receiver.problems.join('; ')}`,
  );
}

const hasRunSpan = (count: number) => (spans: ReceivedSpan[]) => spans.filter((span) => span.name.startsWith('invoke_workflow')).length >= count;

describe('a paused run across a restart of the server', () => {
  it("is sent as the server stops, and continues in the same trace: the next server's run span is a child of the first", async () => {
    const project = await projectWithWorkflows([
      {
        name: 'gated',
        nodes: [
          { id: 'before', bash: 'echo before' },
          { id: 'gate', approval: { message: 'Go on?' }, depends_on: ['before'] },
          { id: 'after', bash: 'echo after', depends_on: ['gate'] },
        ],
      },
    ]);
    const home = await makeHome();
    const first = await startServer({ home, env: tracingEnv() });
    const runId = await startRun(first, 'gated', { message: '', cwd: project });
    const paused = await waitForStatus(first, runId, 'paused');
    await first.stop({ keepHome: true });
    // Nothing of the paused run is lost with the process: its span so far, and its node's, left as it stopped.
    const before = await spansOf(runId, hasRunSpan(1));
    const firstRunSpan = before.find((span) => span.name === 'invoke_workflow gated')!;
    expect(firstRunSpan.attributes['svc.process_stopped']).toBe(true);
    expect(before.find((span) => span.name === 'bash before')?.parentSpanId).toBe(firstRunSpan.spanId);
    expect(paused.traceparent).toBe(`00-${firstRunSpan.traceId}-${firstRunSpan.spanId}-01`);

    const second = await startServer({ home, env: tracingEnv() });
    expect((await api(second, 'POST', `/api/workflows/runs/${runId}/approve`, {})).status).toBe(200);
    expect((await waitForRun(second, runId)).status).toBe('completed');
    const spans = await spansOf(runId, hasRunSpan(2));
    const secondRunSpan = spans.find((span) => span.name === 'invoke_workflow gated' && span.spanId !== firstRunSpan.spanId)!;
    expect(secondRunSpan.traceId).toBe(firstRunSpan.traceId);
    expect(secondRunSpan.parentSpanId).toBe(firstRunSpan.spanId);
    expect(secondRunSpan.attributes['svc.status']).toBe('completed');
    expect(secondRunSpan.events.map((event) => event.name)).toEqual(['approval']);
    expect(spans.find((span) => span.name === 'bash after')?.parentSpanId).toBe(secondRunSpan.spanId);
  });
});
