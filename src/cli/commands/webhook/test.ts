import { createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postWebhook, webhookUrl, type WebhookTriggerView } from '../../../client/index.js';
import { defineCommand } from '../../define-command.js';
import { CliError, EXIT, UsageError } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { printJson } from '../../output.js';
import { readStdin } from '../../io.js';
import { currentTriggers } from './_shared.js';

const SIGNATURE_HEADER = 'x-svc-signature-256';

/** A word for a POSIX shell, single-quoted. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The trigger as the server knows it; undefined when it has no such slug (the delivery then shows the 404). */
async function findTrigger(cmd: CommandContext, slug: string): Promise<WebhookTriggerView | undefined> {
  const { webhooks } = await currentTriggers(cmd.client('server'));
  return webhooks.find((w) => w.slug === slug);
}

/**
 * `svc webhook test <slug>`: sends a delivery as a producer would — it builds the payload (the
 * trigger's event, a fresh idempotency key, the filter's fields) or reads it from a file or stdin,
 * signs the exact bytes it sends, posts them, and prints the answer. Exit 0 for a 2xx answer, else 1.
 */
export default defineCommand({
  args: [['<slug>', 'the trigger slug']],
  options: {
    payload: ['--payload <file>', "send this file's bytes as they are ('-': stdin) instead of a built payload"],
    event: ['--event <name>', "the built payload's event (default: the trigger's)"],
    key: ['--key <value>', "the built payload's idempotency key (default: a fresh UUID)"],
    secretEnv: ['--secret-env <name>', "sign with the secret in this environment variable (default: the trigger's secret_env)"],
    secret: ['--secret <value>', 'sign with this secret'],
    dryRun: ['--dry-run', 'print the equivalent curl command (with its signature) instead of sending'],
  },
  run: async (cmd, [slug], options) => {
    if (options.payload !== undefined && (options.event !== undefined || options.key !== undefined)) {
      throw new UsageError('--event and --key build a payload; with --payload the bytes are sent as they are');
    }
    if (options.secret !== undefined && options.secretEnv !== undefined) throw new UsageError('give --secret or --secret-env, not both');
    const trigger = await findTrigger(cmd, slug);

    let body: Buffer;
    if (options.payload !== undefined) {
      body = options.payload === '-' ? await readStdin(cmd.io) : await readFile(options.payload);
    } else {
      if (!trigger) throw new CliError(`No webhook trigger has the slug '${slug}' on ${cmd.target.url}; pass --payload to send one anyway.`);
      const payload = { ...trigger.filter, event: options.event ?? trigger.event, [trigger.idempotency_key]: options.key ?? randomUUID() };
      body = Buffer.from(JSON.stringify(payload));
    }

    let secret = options.secret;
    if (secret === undefined) {
      const name = options.secretEnv ?? trigger?.secret_env;
      if (!name) throw new UsageError(`No trigger '${slug}' to take secret_env from: pass --secret-env NAME or --secret VALUE`);
      secret = cmd.settings.webhookSecret(name);
      if (secret === undefined) throw new UsageError(`${name} is not set in this environment: export it, or pass --secret-env NAME or --secret VALUE`);
    }
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const headers = { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature };

    if (options.dryRun) {
      // The printed command must send the very bytes signed: a payload read from stdin goes to a
      // file (text would change bytes that are not UTF-8, and an argument cannot hold a NUL).
      let data = body.toString('utf8');
      if (options.payload === '-') {
        const file = join(await mkdtemp(join(tmpdir(), 'svc-webhook-')), 'payload.json');
        await writeFile(file, body);
        data = `@${file}`;
      } else if (options.payload !== undefined) data = `@${options.payload}`;
      cmd.io.out(
        `curl -sS -X POST ${shellQuote(webhookUrl(cmd.target.url, slug))} -H 'content-type: application/json' -H ${shellQuote(`${SIGNATURE_HEADER}: ${signature}`)} --data-binary ${shellQuote(data)}\n`,
      );
      return;
    }
    const answer = await postWebhook(cmd.target.url, slug, body, headers);
    let parsed: unknown = answer.text;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      // Not JSON: shown as received.
    }
    if (cmd.globals.json) printJson(cmd.io, { status: answer.status, body: parsed });
    else cmd.io.out(`${answer.status} ${typeof parsed === 'string' ? parsed : JSON.stringify(parsed)}\n`);
    return answer.status >= 200 && answer.status < 300 ? EXIT.ok : EXIT.failed;
  },
});
