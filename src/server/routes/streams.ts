import { z } from 'zod';
import type { AppContext } from '../../app/context.js';
import type { RunEvent } from '../../engine/events.js';
import { defineRoute } from '../route.js';
import { openEventStream, type StreamSource } from '../stream-hub.js';

export const DASHBOARD_STREAM = '__dashboard__';

/** Events whose run finished long before `after` cannot be missed; only recent runs are read. */
async function replayRuns(ctx: AppContext, after: number, include: (run: { id: string; conversationId: string | null; platformId: string }) => boolean) {
  const sinceMs = after / 1000 - 1000;
  const candidates = ctx.engine.runs
    .all()
    .filter((run) => include(run) && (run.finishedAt === null || run.status === 'paused' || Date.parse(run.updatedAt) >= sinceMs));
  const events: RunEvent[] = [];
  for (const run of candidates) for (const event of await ctx.engine.runs.readEvents(run.id)) if (event.pos > after) events.push(event);
  return events.sort((a, b) => a.pos - b.pos);
}

/**
 * `__dashboard__` carries every run event; any other id carries the events of runs linked to
 * that conversation (as their conversationId, or as their worker conversation). `runId` narrows
 * either to one run (what `svc watch <run>` uses).
 */
function sourceFor(ctx: AppContext, conversationId: string, runId: string | undefined): StreamSource {
  const linked = (run: { id: string; conversationId?: string | null; platformId?: unknown }) =>
    (runId === undefined || run.id === runId) &&
    (conversationId === DASHBOARD_STREAM || run.conversationId === conversationId || run.platformId === conversationId);
  return {
    matches: (event) => linked({ id: event.runId, conversationId: event.conversationId, platformId: event.platformId }),
    replay: (after) => replayRuns(ctx, after, linked),
  };
}

export const streamRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/stream/{conversationId}',
    summary: `Server-Sent Events of one conversation, or of every run with '${DASHBOARD_STREAM}'. Last-Event-ID replays missed events.`,
    tag: 'streams',
    params: z.object({ conversationId: z.string().min(1) }),
    query: z.object({
      runId: z.string().optional().describe('only the events of this run'),
      lastEventId: z.string().optional().describe('replay events after this position (as the Last-Event-ID header does)'),
    }),
    responses: { 200: { description: 'An event stream: `id: <position>` and `data: <json event>` frames', contentType: 'text/event-stream' } },
    handle: ({ ctx, params, query, event }) => openEventStream(ctx, event, sourceFor(ctx, params.conversationId, query.runId)),
  }),
];
