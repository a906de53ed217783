// A local OTLP/HTTP traces receiver for the tracing tests: a plain node:http server that takes
// POST /v1/traces, answers 200 as a collector does, and decodes each body — JSON as it is, protobuf
// with protobufjs over the OTLP trace messages below — into one shape both protocols share.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

// The messages of opentelemetry-proto's collector/trace/v1 that an export request is made of
// (trace.proto, common.proto, resource.proto), with their field numbers; links are left out.
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
  repeated Event events = 11; uint32 dropped_events_count = 12;
  Status status = 15;
}
`;
const ExportRequest = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root.lookupType('otlp.ExportTraceServiceRequest');

export type AttributeValue = string | number | boolean;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, AttributeValue>;
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  /** The base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`): exporters post to `<url>/v1/traces`. */
  url: string;
  /** The content types of the requests received, in order. */
  contentTypes: string[];
  spans: ReceivedSpan[];
  /** Any request not a POST to /v1/traces, or a body that did not decode. */
  problems: string[];
  close(): Promise<void>;
}

type Json = Record<string, any>;

const hex = (value: unknown): string =>
  value instanceof Uint8Array ? Buffer.from(value).toString('hex') : typeof value === 'string' ? value.toLowerCase() : '';

/** An OTLP AnyValue (protobufjs's object or OTLP/JSON's) as a plain value. */
function plain(value: Json | undefined): AttributeValue {
  if (!value) return '';
  if ('stringValue' in value) return value.stringValue as string;
  if ('boolValue' in value) return value.boolValue as boolean;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  return JSON.stringify(value);
}

const attributesOf = (list: Json[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key as string, plain(kv.value as Json | undefined)]));

/** The spans of one export request, whichever protocol carried it (protobufjs's camelCase object or OTLP/JSON). */
function spansOf(request: Json): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of (request.resourceSpans ?? []) as Json[]) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of (resourceSpans.scopeSpans ?? []) as Json[]) {
      for (const span of (scopeSpans.spans ?? []) as Json[]) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name as string,
          attributes: attributesOf(span.attributes),
          events: ((span.events ?? []) as Json[]).map((event) => ({ name: event.name as string, attributes: attributesOf(event.attributes) })),
          statusCode: Number(span.status?.code ?? 0),
          resource,
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const contentTypes: string[] = [];
  const spans: ReceivedSpan[] = [];
  const problems: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        problems.push(`${req.method} ${req.url}`);
        res.writeHead(404).end();
        return;
      }
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      try {
        if (type.startsWith('application/json')) {
          spans.push(...spansOf(JSON.parse(body.toString('utf8')) as Json));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } else {
          const message = ExportRequest.decode(body);
          spans.push(...spansOf(ExportRequest.toObject(message, { longs: String, defaults: false }) as Json));
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        }
      } catch (error) {
        problems.push(`undecodable ${type} body: ${(error as Error).message}`);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    contentTypes,
    spans,
    problems,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
