import { z } from 'zod';
import type { AppContext } from '../../app/context.js';
import type { RunLink } from '../../engine/engine.js';
import { defineRoute } from '../route.js';
import { openEventStream, type StreamSource } from '../stream-hub.js';

export const DASHBOARD_STREAM = '__dashboard__';

/**
 * `__dashboard__` carries every run event; any other id carries the events of runs linked to
 * that conversation (as their conversationId, or as their worker conversation). `runId` narrows
 * either to one run (what `svc watch <run>` uses).
 */
function sourceFor(ctx: AppContext, conversationId: string, runId: string | undefined): StreamSource {
  const linked = (run: RunLink) =>
    (runId === undefined || run.id === runId) &&
    (conversationId === DASHBOARD_STREAM || run.conversationId === conversationId || run.platformId === conversationId);
  return {
    matches: (event) => linked({ id: event.runId, conversationId: event.conversationId, platformId: event.platformId }),
    replay: (after) => ctx.engine.replay(after, linked),
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
