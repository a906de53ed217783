/**
 * One trace per run (docs/decisions.md, "Traces"): the `RunTracing` the engine tells a run's
 * execution to, and how a process opens it. With no OTLP endpoint configured it is `NO_TRACING`,
 * and the OpenTelemetry SDK is never loaded: only `openTracing` reaches it, with `await import()`.
 */
import type { Logger } from '../shared/logger.js';
import type { TracingSettings } from '../shared/settings.js';
import { NO_RUN_TRACE, NO_TRACING } from './disabled.js';
import type { RunTracing } from './types.js';

export type { AgentFacts, NodeSpanEnd, NodeSpanEvent, NodeTrace, RunSpanEnd, RunSpanEvent, RunTrace, RunTracing, ToolCallFacts, TracedRun } from './types.js';
export { NO_RUN_TRACE, NO_TRACING };

/** The process's tracing: the SDK's when `settings` (`Settings.tracing`) asks for it, else none. */
export async function openTracing(settings: TracingSettings | null, options: { logger: Logger; version: string }): Promise<RunTracing> {
  if (!settings) return NO_TRACING;
  const { openOtelTracing } = await import('./otel-tracing.js');
  return openOtelTracing(settings, options);
}
