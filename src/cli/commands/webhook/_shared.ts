/** What the `svc webhook …` commands share: the table of triggers, and the triggers as they are now. */

import type { SvcClient, WebhookTriggerView } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { printTable } from '../../output.js';

/**
 * The registered triggers, once a server has registered what changed in its own directory and
 * workspaces (issue 32): a file saved a moment ago, whose change the server has not acted on yet,
 * is listed (and takes deliveries) before this answers. With no server, the store's registry as
 * it is: nothing keeps the server's places registered then, and the CLI's directory is none of them.
 */
export async function currentTriggers(client: SvcClient): Promise<{ webhooks: WebhookTriggerView[] }> {
  if ((await client.runHost()) === 'server') await client.webhooks.register();
  return client.webhooks.list();
}

/** `set`, `missing`, or `weak` (set, but too easy to guess: deliveries are refused with 503). */
const secretState = (w: WebhookTriggerView) => (w.secret_weak ? 'weak' : w.secret_configured ? 'set' : 'missing');

/** One row per trigger: slug, workflow, event, the secret's variable and state (never its value), key field, window. */
export function printTriggers(cmd: CommandContext, webhooks: WebhookTriggerView[]): Promise<void> {
  return printTable(
    cmd.io,
    ['SLUG', 'WORKFLOW', 'EVENT', 'SECRET', 'KEY FIELD', 'WINDOW'],
    webhooks.map((w) => [w.slug, w.workflow, w.event, `${w.secret_env} (${secretState(w)})`, w.idempotency_key, `${w.dedupe_window_sec}s`]),
  );
}
