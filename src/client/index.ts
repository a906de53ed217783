/**
 * The client of the svc API (docs/ARCHITECTURE.md): the front ends' one way to the domain. Over
 * HTTP to a server, or through the same routes in this process when none runs.
 */
export { createClient, type SvcClient } from './client.js';
export { ApiResponseError, ServerExchangeError, ServerUnreachableError } from './errors.js';
export { formatUsd } from './format.js';
export { DASHBOARD_STREAM, type EventFeed, type FollowOptions } from './events.js';
export { httpTransport } from './http-transport.js';
export { LOCAL_ORIGIN, localTransport, type LocalApi, type OpenLocalApi } from './local-transport.js';
export { serverOrLocal, type ServerOrLocalOptions } from './server-or-local.js';
export { resolveServer, type ServerTarget } from './server-target.js';
export type { ApiAnswer, ApiRequest, RunHost, Transport } from './transport.js';
export * from './types.js';
export { deniedToolCalls, deniedToolsNote, refusalsNote, sandboxRefusalsNote } from './tool-activity.js';
export { toleratedNodes, toleratedNote } from './node-failures.js';
export { postWebhook, webhookUrl, type DeliveryAnswer } from './webhook-delivery.js';
export { conflictLine, conflictPhrases, shownFiles, shownPath } from './conflicts.js';
