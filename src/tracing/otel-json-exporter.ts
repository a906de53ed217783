// The OTLP/HTTP JSON exporter, in a module of its own: loaded only for `http/json` (otel-tracing.ts).
// Imported statically here, not by a dynamic import of the package itself: the package is CommonJS,
// and the bundle's chunk of a dynamically imported CommonJS package has only a default export.
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
