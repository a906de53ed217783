// The built `svc serve` with an OTLP endpoint (docs/decisions.md, "Traces"): the SDK loads (only
// then — test/cli/serve-footprint.test.ts holds that it does not otherwise, and this is the other
// half: the same check sees it when it is there), and stopping the server loses no span, not even
// those of a run still paused at its gate.
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { projectWithWorkflows, cleanupAll, startRun, waitForStatus, waitFor } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { TRACER, traced } from '../helpers/trace.js';

let home: string;
let receiver: OtlpReceiver;
beforeAll(async () => {
  home = await makeHome();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await killAllServes();
  await cleanupAll();
  await receiver.close();
  await rm(home, { recursive: true, force: true });
});

describe('svc serve exporting traces', () => {
  it('loads the OpenTelemetry SDK, and sends a paused run’s spans when it is stopped', async () => {
    const project = await projectWithWorkflows([
      {
        name: 'gated',
        nodes: [
          { id: 'before', bash: 'echo before' },
          { id: 'gate', approval: { message: 'Go on?' }, depends_on: ['before'] },
        ],
      },
    ]);
    // A long batch delay: what arrives, arrives because the server sent it as it stopped.
    const serve = await spawnServe({
      home,
      nodeArgs: ['--import', TRACER],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_BSP_SCHEDULE_DELAY: '600000' },
    });
    const runId = await startRun(serve, 'gated', { message: '', cwd: project });
    await waitForStatus(serve, runId, 'paused');
    expect(receiver.spans.filter((span) => span.attributes['svc.run.id'] === runId)).toEqual([]);
    expect(await serve.stop()).toEqual({ code: 0, signal: null });

    const spans = await waitFor(() => {
      const found = receiver.spans.filter((span) => span.attributes['svc.run.id'] === runId);
      return found.length >= 2 ? found : undefined;
    });
    expect(receiver.problems).toEqual([]);
    expect(receiver.contentTypes).toContain('application/x-protobuf');
    const runSpan = spans.find((span) => span.name === 'invoke_workflow gated')!;
    expect(runSpan.attributes).toMatchObject({ 'svc.process_stopped': true, 'svc.run.id': runId });
    expect(spans.find((span) => span.name === 'bash before')?.parentSpanId).toBe(runSpan.spanId);

    // The SDK came from the bundle's chunks, loaded only because the endpoint was set.
    const chunks = traced(serve.stderr(), 'import').filter((url) => /\/dist\/chunks\/[^/]+\.js$/.test(url));
    const sources: string[] = [];
    for (const url of chunks) sources.push(...(JSON.parse(await readFile(fileURLToPath(`${url}.map`), 'utf8')) as { sources: string[] }).sources);
    expect(sources.some((source) => source.includes('node_modules/@opentelemetry/sdk-trace'))).toBe(true);
    expect(sources.some((source) => source.includes('node_modules/@opentelemetry/exporter-trace-otlp-proto/'))).toBe(true);
    expect(sources.some((source) => source.includes('node_modules/@opentelemetry/exporter-trace-otlp-http/'))).toBe(false);
  });
});
