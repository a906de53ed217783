import * as z from 'zod';
import type { AppContext } from '../../app/context.js';
import { TOOL_SUMMARY_MAX } from '../../agents/index.js';
import { CONVERSATION_EVENT_TYPES, type SvcStreamEvent } from '../../conversations/index.js';
import { RUN_EVENT_TYPES } from '../../runs/index.js';
import { inStream, type RunEventFilter, positionOf, type StreamSource } from '../../events/index.js';
import { defineRoute } from '../route.js';

export const DASHBOARD_STREAM = '__dashboard__';

/** What the `data:` of a frame can be (docs/contract.md, "Events and streams"), for the OpenAPI document. */
const EVENT_TYPES_DOC =
  `Each \`data:\` is one JSON event \`{type, at, …}\`. Run events (with \`runId\`, \`seq\`): ${RUN_EVENT_TYPES.join(', ')}, run_deleted. ` +
  `Conversation events (with \`conversationId\`, no \`runId\`): ${CONVERSATION_EVENT_TYPES.join(', ')}. ` +
  `\`agent_tool\` is an agent's tool call once resolved: \`nodeId\` (run) or \`messageId\` (conversation), \`tool\`, ` +
  `\`summary\` (one line, at most ${TOOL_SUMMARY_MAX} characters, never file contents), \`status\` \`ok\` | \`denied\` | \`failed\`. ` +
  `\`sandbox_denied\` is a refusal of an agent's OS sandbox: \`nodeId\`, \`kind\` \`fs\` | \`net\` | \`escape\`, \`target\` (a path, or \`host:port\`), \`tool\`. ` +
  `\`node_memory\` is a running node's memory: \`nodeId\`, \`rssBytes\` (its process tree's, as last sampled), \`peakRssBytes\` (its peak so far); at most one per node every 2 s.`;

/**
 * `__dashboard__` carries every run event; any other id carries the events of runs linked to
 * that conversation (as their conversationId — either of its ids — or as their worker
 * conversation) and the conversation's own events (messages, reply deltas, errors). `runId`
 * narrows either to one run's events (what `svc watch <run>` uses). The CLI's in-process
 * follower uses it too.
 */
export async function sourceFor(ctx: AppContext, streamId: string, runId: string | undefined): Promise<StreamSource<SvcStreamEvent>> {
  const dashboard = streamId === DASHBOARD_STREAM;
  const { conversationId, ids } = dashboard ? { conversationId: null, ids: [] } : await ctx.conversations.streamIds(streamId);
  // One rule for the live events and the replayed ones (stream-membership.ts).
  const filter: RunEventFilter = { runId, linkedTo: dashboard ? undefined : ids };
  const ownEvents = conversationId !== null && runId === undefined;
  return {
    matches: (event) =>
      'runId' in event
        ? inStream({ id: event.runId, conversationId: event.conversationId, platformId: event.platformId }, filter)
        : ownEvents && event.conversationId === conversationId,
    replay: async (after) => {
      const runEvents: SvcStreamEvent[] = await ctx.engine.replay(after, filter);
      if (!ownEvents) return runEvents;
      const own = await ctx.conversations.replay(conversationId, after);
      return [...runEvents, ...own].sort((a, b) => positionOf(a) - positionOf(b));
    },
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
    responses: {
      200: { description: `An event stream: \`id: <position>\` and \`data: <json event>\` frames. ${EVENT_TYPES_DOC}`, contentType: 'text/event-stream' },
    },
    handle: async ({ ctx, params, query, event }) => {
      // Only h3 serves this route (in process, streams are followed through the feed: src/runtime.ts);
      // the SSE writer and h3 load with it, never for a JSON route.
      if (!event) throw new Error('An event stream needs an HTTP request to write to.');
      const { openEventStream } = await import('../stream-hub.js');
      const source = await sourceFor(ctx, params.conversationId, query.runId);
      return openEventStream(ctx, event, source, { stream: params.conversationId, runId: query.runId });
    },
  }),
];
