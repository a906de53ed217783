/**
 * The OpenTelemetry SDK behind `RunTracing` (docs/decisions.md, "Traces"). This module and what it
 * imports load only when tracing is on (`openTracing` in index.ts imports it with `await import()`),
 * so a process without an OTLP endpoint loads no @opentelemetry module at all.
 *
 * No global is touched: no global tracer provider, context manager or propagator. Every span is
 * started with its parent's context passed explicitly, so two servers in one process (tests) each
 * export their own runs.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from '../shared/logger.js';
import type { TracingSettings } from '../shared/settings.js';
import { formatTraceparent, traceparentParts } from '../shared/traceparent.js';
import {
  nodeEndAttributes,
  nodeEventAttributes,
  nodeSpanName,
  nodeStartAttributes,
  runEndAttributes,
  runEventAttributes,
  runSpanName,
  runStartAttributes,
  SVC,
  toolAttributes,
  toolSpanName,
} from './otel-attributes.js';
import type { NodeTrace, RunTrace, RunTracing } from './types.js';

/** The exporter the settings ask for, its failures told in svc's log (the SDK's own diagnostics are off). */
async function exporterFor(settings: TracingSettings, logger: Logger): Promise<SpanExporter> {
  // Only the protocol's own exporter loads.
  const { OTLPTraceExporter } = settings.protocol === 'http/json' ? await import('./otel-json-exporter.js') : await import('./otel-proto-exporter.js');
  const exporter: SpanExporter = new OTLPTraceExporter({ url: settings.url });
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        // 0 is ExportResultCode.SUCCESS (@opentelemetry/core, which svc does not import for one constant).
        if (result.code !== 0) logger.warn('tracing.export_failed', { url: settings.url, spans: spans.length, error: result.error?.message ?? 'failed' });
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

const traceparentOf = (span: Span) => {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return formatTraceparent(traceId, spanId, traceFlags);
};

/** The context a remote span's traceparent names: a new span in it is that span's child, in its trace. */
function remoteParent(traceparent: string): Context {
  const { traceId, spanId, flags } = traceparentParts(traceparent);
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: flags, isRemote: true });
}

export async function openOtelTracing(settings: TracingSettings, options: { logger: Logger; version: string }): Promise<RunTracing> {
  const { logger } = options;
  // svc's name and version first, then what OTEL_RESOURCE_ATTRIBUTES says, then OTEL_SERVICE_NAME.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'svc', [ATTR_SERVICE_VERSION]: options.version })
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(settings.serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }) : null);
  // Batched (OTEL_BSP_* apply), and flushed as each run ends and when svc stops: a run's spans
  // leave promptly without one request per span.
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(await exporterFor(settings, logger))] });
  const tracer = provider.getTracer('svc', options.version);
  /** Open run spans by run id; a paused run's stays open until it ends or svc stops. */
  const runs = new Map<string, { span: Span; trace: RunTrace }>();
  /** Node spans not yet ended, with their run's id: ended with their run (an executor that failed ends no node) or by `close`. */
  const openNodes = new Map<Span, string>();
  // An export that failed is already told (tracing.export_failed); what else a flush meets is for debugging.
  const failed = (error: unknown) => logger.debug('tracing.flush_failed', { error: error instanceof Error ? error.message : String(error) });
  const flush = () => {
    provider.forceFlush().catch(failed);
  };

  function nodeTrace(runId: string, runContext: Context, nodeId: string, kind: 'bash' | 'prompt' | 'command'): NodeTrace {
    const span = tracer.startSpan(nodeSpanName(nodeId, kind), { kind: SpanKind.INTERNAL, attributes: nodeStartAttributes(runId, nodeId, kind) }, runContext);
    openNodes.set(span, runId);
    const context = trace.setSpan(runContext, span);
    return {
      traceparent: traceparentOf(span),
      event: (event) => span.addEvent(event.name, nodeEventAttributes(event)),
      tool(call) {
        const tool = tracer.startSpan(toolSpanName(call), { kind: SpanKind.INTERNAL, attributes: toolAttributes(runId, nodeId, call) }, context);
        if (call.status !== 'ok') tool.setStatus({ code: SpanStatusCode.ERROR, message: call.status });
        tool.end();
      },
      end(end) {
        if (!openNodes.delete(span)) return;
        span.setAttributes(nodeEndAttributes(end));
        if (end.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, ...(end.errorCode ? { message: end.errorCode } : {}) });
        span.end();
      },
    };
  }

  return {
    enabled: true,
    run(run) {
      const open = runs.get(run.id);
      if (open) return open.trace;
      const parent = run.traceparent ? remoteParent(run.traceparent) : ROOT_CONTEXT;
      const span = tracer.startSpan(runSpanName(run), { kind: SpanKind.INTERNAL, attributes: runStartAttributes(run) }, parent);
      const context = trace.setSpan(parent, span);
      const runTrace: RunTrace = {
        traceparent: traceparentOf(span),
        event: (event) => span.addEvent(event.name, runEventAttributes(event)),
        node: (nodeId, kind) => nodeTrace(run.id, context, nodeId, kind),
      };
      runs.set(run.id, { span, trace: runTrace });
      return runTrace;
    },
    endRun(runId, end) {
      const open = runs.get(runId);
      if (!open) return;
      runs.delete(runId);
      for (const [span, of] of openNodes) {
        if (of !== runId) continue;
        openNodes.delete(span);
        span.end();
      }
      open.span.setAttributes(runEndAttributes(end));
      if (end.status === 'failed') open.span.setStatus({ code: SpanStatusCode.ERROR, ...(end.errorCode ? { message: end.errorCode } : {}) });
      open.span.end();
      flush();
    },
    async close() {
      for (const span of openNodes.keys()) span.setAttribute(SVC.processStopped, true).end();
      openNodes.clear();
      for (const { span } of runs.values()) span.setAttribute(SVC.processStopped, true).end();
      runs.clear();
      // Sends everything still queued, then stops the exporter.
      await provider.shutdown().catch(failed);
    },
  };
}
