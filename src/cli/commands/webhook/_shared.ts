/** What the `svc webhook …` commands share: the table of triggers. */

import type { WebhookTriggerView } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { printTable } from '../../output.js';

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
