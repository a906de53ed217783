/**
 * What the engine tells of a run as it executes, for its one trace (docs/decisions.md, "Traces"):
 * facts in svc's own words. The names they take in a trace (`svc.*`, the GenAI conventions'
 * `gen_ai.*`) are this room's business alone (otel-attributes.ts).
 */

/** The run a span is started for: its id, its workflow, and the trace context it continues, if any. */
export interface TracedRun {
  id: string;
  workflow: string;
  trigger: string;
  /** The run record's `traceparent`: a webhook delivery's, or the run's first span's (docs/decisions.md, "Traces"). */
  traceparent?: string | undefined;
}

/** What a run span says as it ends: the run's state then. */
export interface RunSpanEnd {
  status: string;
  errorCode?: string | null | undefined;
  costUsd?: number | null | undefined;
  peakRssBytes?: number | undefined;
}

/** Something that happened to the run, as a span event on its run span. */
export type RunSpanEvent =
  /** An approval gate was decided (`approval`). */
  | { name: 'approval'; nodeId: string; decision: 'approved' | 'rejected'; waitedMs?: number | null | undefined }
  /** A wait node holds the run (`wait`): until a time, for an event, or both. */
  | { name: 'wait'; nodeId: string; until?: string | undefined; event?: string | undefined };

/** Something that happened to a node, as a span event on its node span. */
export type NodeSpanEvent =
  /** The node waits for an agent slot or for memory before its process starts (`wait`), or got it (`wait_end`). */
  | { name: 'wait' | 'wait_end'; waitingFor: string }
  /** An attempt failed and the node tries again (`retry`): the attempt that failed and why, as a code. */
  | { name: 'retry'; attempt: number; errorCode: string };

/** The agent a prompt or command node called, as it reported itself. */
export interface AgentFacts {
  /** `claude` or `codex`. */
  assistant: string;
  /** The model asked for (node → workflow → configuration), null when the agent's default. */
  requestModel?: string | null | undefined;
  /** The model that answered, as the agent reported it. */
  responseModel?: string | null | undefined;
  tokens?: { input: number; output: number; cachedInput?: number | undefined } | null | undefined;
}

/** What a node span says as it ends: the node's state then. */
export interface NodeSpanEnd {
  status: string;
  errorCode?: string | null | undefined;
  attempts?: number | undefined;
  costUsd?: number | null | undefined;
  peakRssBytes?: number | undefined;
  cpuSeconds?: number | undefined;
  agent?: AgentFacts | undefined;
}

/** One resolved tool call of a node's agent: its tool and how it ended, never what it was given or gave. */
export interface ToolCallFacts {
  tool: string;
  status: 'ok' | 'denied' | 'failed';
}

/** A node's span, from its start to its end; `traceparent` goes to its processes as `TRACEPARENT`. */
export interface NodeTrace {
  /** The node span's W3C trace context; undefined when tracing is off. */
  readonly traceparent: string | undefined;
  event(event: NodeSpanEvent): void;
  /** One `execute_tool` span under the node's, at the moment the call resolved. */
  tool(call: ToolCallFacts): void;
  end(end: NodeSpanEnd): void;
}

/** A run's span in this process. */
export interface RunTrace {
  /** The run span's W3C trace context; undefined when tracing is off. */
  readonly traceparent: string | undefined;
  event(event: RunSpanEvent): void;
  /** A node's span, a child of the run's: `invoke_agent` for prompt and command nodes, a plain one for bash nodes. */
  node(nodeId: string, kind: 'bash' | 'prompt' | 'command'): NodeTrace;
}

/**
 * A process's tracing: one span per run while the run is in this process, from its first
 * execution here until it ends (terminal) or the process stops. Every method is cheap and never
 * throws; with tracing off (`NO_TRACING`) every method does nothing.
 */
export interface RunTracing {
  readonly enabled: boolean;
  /** The run's open span in this process, or a new one in the run's trace (docs/decisions.md, "Traces"). */
  run(run: TracedRun): RunTrace;
  /** Ends the run's span, if one is open here, and sends what is pending. */
  endRun(runId: string, end: RunSpanEnd): void;
  /** The process stops: every open run span ends as its run stands, and every span is sent before this resolves. */
  close(): Promise<void>;
}
