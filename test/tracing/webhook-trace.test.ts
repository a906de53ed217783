// A webhook delivery's `traceparent` continues the sender's trace (docs/decisions.md, "Traces"):
// the run's span is a child of the header's span; a malformed header is ignored, never refused.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { cleanupAll, startServer, waitFor, waitForRun } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';
import { deliver, hookWorkflow, registerTriggers, SECRET } from '../helpers/webhooks.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

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

describe('a webhook delivery with a traceparent header', () => {
  let server: TestServer;
  let project: Project;
  let counter = 0;
  const push = () => JSON.stringify({ event: 'push', delivery_id: `d-${Date.now()}-${counter++}` });

  beforeAll(async () => {
    project = await makeProject();
    // The bash node (sandboxed: a webhook's values come from outside) prints the TRACEPARENT it got.
    await project.write(
      'hook.yaml',
      hookWorkflow('hook', ['{ event: push, slug: traced-push, secret_env: PUSH_SECRET, idempotency_key: delivery_id }']).replace(
        '    bash: |\n',
        '    bash: |\n      echo "tp=$TRACEPARENT"\n',
      ),
    );
    server = await startServer({ env: { PUSH_SECRET: SECRET, ...tracingEnv() } });
    await registerTriggers(server, project.dir);
  });
  afterAll(async () => {
    await server?.stop();
    await project?.remove();
  });

  it("continues the sender's trace: the run span's trace is the header's, its parent the header's span", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const answer = await deliver(server, 'traced-push', push(), { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    expect(answer.status).toBe(202);
    const run = await waitForRun(server, answer.body.run_id as string);
    expect(run.status).toBe('completed');
    expect(run.traceparent).toBe(`00-${traceId}-${parentId}-01`);

    const spans = await spansOf(run.id, hasRunSpan(1));
    const runSpan = spans.find((span) => span.name === 'invoke_workflow hook')!;
    expect(runSpan.traceId).toBe(traceId);
    expect(runSpan.parentSpanId).toBe(parentId);
    expect(runSpan.attributes['svc.trigger']).toBe('webhook');
    const node = spans.find((span) => span.name === 'bash show')!;
    expect(node.traceId).toBe(traceId);
    expect(node.parentSpanId).toBe(runSpan.spanId);
    // Through the bash sandbox too, the script got its node span's context.
    expect(run.nodes.show.sandbox).toBe('on');
    expect(run.nodes.show.output).toContain(`tp=00-${traceId}-${node.spanId}-01`);
  });

  it.each([['not-a-traceparent'], [`00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`], [`00-${'A'.repeat(32)}-${'1'.repeat(16)}-01`]])(
    'a malformed traceparent (%s) is ignored: the run is accepted and starts a trace of its own',
    async (header) => {
      const answer = await deliver(server, 'traced-push', push(), { headers: { traceparent: header } });
      expect(answer.status).toBe(202);
      const run = await waitForRun(server, answer.body.run_id as string);
      expect(run.status).toBe('completed');
      const [runSpan] = (await spansOf(run.id, hasRunSpan(1))).filter((span) => span.name === 'invoke_workflow hook');
      expect(runSpan!.parentSpanId).toBe('');
      expect(run.traceparent).toBe(`00-${runSpan!.traceId}-${runSpan!.spanId}-01`);
    },
  );
});
