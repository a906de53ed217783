// What turns tracing on and where it sends (docs/contract.md, "Environment"; docs/decisions.md,
// "Traces"): the standard OpenTelemetry variables, read as the specification says; and the W3C
// traceparent as svc reads one from outside.
import { describe, expect, it } from 'vitest';
import { SettingsError, tracingSettings } from '../../src/shared/settings.js';
import { parseTraceparent } from '../../src/shared/traceparent.js';

describe('tracing settings', () => {
  it('are off without an endpoint, and when OTEL_SDK_DISABLED is true', () => {
    expect(tracingSettings({})).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('send to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, or to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: undefined,
    });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/base/' })?.url).toBe('https://otel.example/base/v1/traces');
    expect(
      tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom/path' })?.url,
    ).toBe('http://traces:4318/custom/path');
  });

  it('take http/json or http/protobuf, the traces variable first, and the service name', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettings({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'svc-ci' })).toMatchObject({
      protocol: 'http/json',
      serviceName: 'svc-ci',
    });
    expect(tracingSettings({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
  });

  it('refuse what they cannot use, naming the variable', () => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(SettingsError);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/,
    );
  });
});

describe('a traceparent from outside', () => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';

  it('is kept when valid, as version 00', () => {
    expect(parseTraceparent(`00-${trace}-${span}-01`)).toBe(`00-${trace}-${span}-01`);
    expect(parseTraceparent(` 00-${trace}-${span}-00 `)).toBe(`00-${trace}-${span}-00`);
    // A later version is read by its first four fields.
    expect(parseTraceparent(`01-${trace}-${span}-01-more`)).toBe(`00-${trace}-${span}-01`);
  });

  it.each([
    [undefined],
    [null],
    [''],
    ['garbage'],
    [`00-${trace}-${span}`],
    [`00-${trace.toUpperCase()}-${span}-01`],
    [`00-${'0'.repeat(32)}-${span}-01`],
    [`00-${trace}-${'0'.repeat(16)}-01`],
    [`ff-${trace}-${span}-01`],
    [`00-${trace}-${span}-01-extra`],
  ])('is ignored when malformed: %j', (value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
