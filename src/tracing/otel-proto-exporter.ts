// The OTLP/HTTP protobuf exporter, in a module of its own: loaded only for `http/protobuf`
// (otel-tracing.ts), for the reason otel-json-exporter.ts gives.
export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
