import type { NodeTrace, RunTrace, RunTracing } from './types.js';

const NO_NODE: NodeTrace = { traceparent: undefined, event() {}, tool() {}, end() {} };
const NO_RUN: RunTrace = { traceparent: undefined, event() {}, node: () => NO_NODE };

/** Tracing off: nothing is recorded, no process gets a `TRACEPARENT`, and no OpenTelemetry module is loaded. */
export const NO_TRACING: RunTracing = {
  enabled: false,
  run: () => NO_RUN,
  endRun() {},
  close: async () => {},
};

/** A run that is not traced (an executor opened without tracing). */
export const NO_RUN_TRACE: RunTrace = NO_RUN;
