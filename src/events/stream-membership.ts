/**
 * Which runs' events a stream carries (docs/contract.md, "Events and streams"), as one rule written
 * once, as data: the live filter of a stream (server/routes/streams.ts), the file store's replay
 * (run-repository.ts) and PostgreSQL's (the SQL built here) all read it, so they cannot disagree.
 */

/** Which runs' events a stream carries: one run, runs linked to these conversation ids (as conversation or worker), or all. */
export interface RunEventFilter {
  runId?: string;
  /** A run matches when its `conversationId` or its `platformId` is one of these; undefined: every run. */
  linkedTo?: readonly string[];
}

/** What of a run (or of one of its events, which carry the same ids) the rule reads. */
export interface RunLinks {
  id: string;
  conversationId: string | null;
  /** The run's worker conversation (docs/ARCHITECTURE.md, "Glossary"). */
  platformId: string | null;
}

/**
 * Each condition a filter may set: a run matches it when one of `fields` holds one of the values
 * asked. A run is in the stream when it matches every condition the filter sets; none set: every run.
 */
const MEMBERSHIP = [
  { asked: (filter: RunEventFilter) => (filter.runId === undefined ? undefined : [filter.runId]), fields: ['id'] },
  { asked: (filter: RunEventFilter) => filter.linkedTo, fields: ['conversationId', 'platformId'] },
] as const satisfies ReadonlyArray<{ asked: (filter: RunEventFilter) => readonly string[] | undefined; fields: ReadonlyArray<keyof RunLinks> }>;

/** Whether the run's events belong to the stream `filter` describes. */
export function inStream(run: RunLinks, filter: RunEventFilter): boolean {
  return MEMBERSHIP.every(({ asked, fields }) => {
    const values = asked(filter);
    return values === undefined || fields.some((field) => run[field] !== null && values.includes(run[field]));
  });
}

/**
 * The same rule as SQL conditions (joined with AND by the caller) over the columns that hold each
 * field; the values are pushed onto `params` and referenced as `$n` text arrays.
 */
export function inStreamSql(filter: RunEventFilter, columns: Record<keyof RunLinks, string>, params: unknown[]): string[] {
  return MEMBERSHIP.flatMap(({ asked, fields }) => {
    const values = asked(filter);
    if (values === undefined) return [];
    const n = params.push([...values]);
    return [`(${fields.map((field) => `${columns[field]} = ANY($${n}::text[])`).join(' OR ')})`];
  });
}
