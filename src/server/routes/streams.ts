import { z } from 'zod';
import type { AppContext } from '../../app/context.js';
import type { RunLink } from '../../engine/engine.js';
import { defineRoute } from '../route.js';
import type { StreamSource } from '../stream-feed.js';

export const DASHBOARD_STREAM = '__dashboard__';

/**
 * `__dashboard__` carries every run event; any other id carries the events of runs linked to
 * that conversation (as their conversationId, or as their worker conversation). `runId` narrows
 * either to one run (what `svc watch <run>` uses). The CLI's in-process follower uses it too.
 */
export function sourceFor(ctx: AppContext, conversationId: string, runId: string | undefined): StreamSource {
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
    handle: async ({ ctx, params, query, event }) => {
      // Only h3 serves this route (in process, streams are followed through the feed: src/runtime.ts);
      // the SSE writer and h3 load with it, never for a JSON route.
      if (!event) throw new Error('An event stream needs an HTTP request to write to.');
      const { openEventStream } = await import('../stream-hub.js');
      return openEventStream(ctx, event, sourceFor(ctx, params.conversationId, query.runId));
    },
  }),
];
