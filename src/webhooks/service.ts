/**
 * The webhook endpoint's decisions (docs/decisions.md, "Webhooks"), in the contract's order: trigger
 * by slug (404) → secret: set (503 `webhook_secret_missing`) and not guessable (503
 * `webhook_secret_weak`, secret-strength.ts) → signature (401) → JSON object (400) → event (200
 * skipped) → filter (200 skipped) → idempotency key (400) → dedupe (200 duplicate / 409 conflict)
 * → the workflow still exists (409) → 202 with a run. The size limit (413) is the route's, checked while
 * the body is read. Every delivery is logged and kept in the bounded history.
 */

import type { SecretWeakness } from '../catalog/index.js';
import { createHash } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { TriggerRecord } from './trigger-registry.js';
import { statusOf } from '../shared/error-answer.js';
import { DomainError, isDomainError, type ErrorCode } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { eventOf, idempotencyKeyOf, matchesFilter, parsePayload } from './payload.js';
import type { DedupeRecord, DeliveryOutcome, DeliveryRecord } from './records.js';
import type { WebhookRepositories } from './repository.js';
import { verifySignature } from './signature.js';
import { MIN_SECRET_LENGTH, SECRET_ADVICE, secretWeakness } from './secret-strength.js';

/** The largest body the endpoint takes. */
export const WEBHOOK_BODY_LIMIT = 256 * 1024;
/** The file in a webhook run's artifacts holding the exact payload bytes (`$TRIGGER_PAYLOAD_FILE`). */
export const PAYLOAD_FILE = 'trigger-payload.json';
const PRUNE_EVERY_MS = 60_000;

/**
 * What the endpoint answers: a body with its status, or a refusal, which the server answers as
 * every DomainError is answered (its code's status, the one body). `status` is on both, for the
 * delivery history, which records what each delivery was answered with.
 */
export type WebhookAnswer = { status: number; body: Record<string, unknown> } | { status: number; refused: DomainError };

/** What the service uses; the composition root wires it (app/context.ts). */
export interface WebhookDeps {
  repositories: WebhookRepositories;
  logger: Logger;
  /** The registered trigger of a slug. */
  findTrigger(slug: string): Promise<TriggerRecord | undefined>;
  /** A workspace's env values (secrets are looked up there first). */
  /** The workspace's env values; rejects when the workspace no longer exists. */
  workspaceEnv(workspaceId: string): Promise<Record<string, string>>;
  /** A variable of the server's environment (looked up second). */
  processSecret(name: string): string | undefined;
  /** Starts the run; rejects with `workflow_not_found` when the workflow is gone. */
  startRun(request: {
    runId: string;
    workflow: string;
    message: string;
    cwd: string;
    variables: Record<string, string>;
    /** The delivery's W3C `traceparent`, when it carried a valid one: the run's trace continues it. */
    traceparent?: string;
  }): Promise<{ id: string }>;
  /**
   * A signalling trigger's delivery (`signal:`): delivers the event to the run's waiting node with
   * the payload; rejects as `POST …/signal` does (404 `run_not_found`, 409 `not_waiting`).
   */
  signalRun(runId: string, event: string, payload: string): Promise<unknown>;
  /** Whether a run exists (a dedupe record left `reserved` by a crash may point at none). */
  runExists(runId: string): Promise<boolean>;
  /**
   * How old a reservation without its run must be before a delivery takes it over. 0 with one
   * server (no run and no live reservation means a crash); with several servers on one database,
   * another server may be creating that very run right now (docs/scaling.md). @default 0
   */
  reservationGraceMs?: number;
  /** Where a run's artifacts live. */
  artifactsDir(runId: string): string;
  /** @default Date.now */
  now?: () => number;
}

const refuse = (code: ErrorCode, message: string): WebhookAnswer => ({ status: statusOf(code), refused: new DomainError(code, message) });

/** Where a trigger's secret is looked up: the variable its `secret_env` names, in its workspace's env vars first. */
export interface SecretSource {
  readonly workspaceId: string | null;
  readonly trigger: { readonly secretEnv: string };
}

/**
 * A trigger's secret as the endpoint judges it: unset or empty (never an empty key), too weak to
 * be a secret (`weakness` says why, without the value), or one to verify signatures with.
 */
export type SecretStatus =
  { readonly state: 'missing' } | { readonly state: 'weak'; readonly weakness: string } | { readonly state: 'set'; readonly secret: string };

/** The answers of a signal that the sender caused (no such run, nobody waiting), passed on as they are. */
const SIGNAL_REFUSALS: readonly string[] = ['run_not_found', 'ambiguous_run_id', 'not_waiting'];

/** The longest run id a signalling delivery may name, in bytes (ids are far shorter). */
const MAX_RUN_ID_BYTES = 200;

/** The longest idempotency key accepted, in bytes. */
export const MAX_IDEMPOTENCY_KEY_BYTES = 1024;

export class WebhookService {
  readonly #deps: WebhookDeps;
  readonly #now: () => number;
  /** One delivery per (slug, key) at a time in this process; the repository's insert-if-absent guards across processes. */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  #lastPrune = 0;

  constructor(deps: WebhookDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The secret of a trigger, judged: missing, weak or set (see SecretStatus). */
  async secretStatus(source: SecretSource): Promise<SecretStatus> {
    const secret = await this.#secretOf(source);
    if (secret === undefined) return { state: 'missing' };
    const weakness = secretWeakness(secret);
    return weakness === undefined ? { state: 'set', secret } : { state: 'weak', weakness };
  }

  /** Why the secret a trigger would be signed with is too weak, if it is, and the advice (what discovery reports). */
  async secretWeakness(source: SecretSource): Promise<SecretWeakness | undefined> {
    const status = await this.secretStatus(source);
    return status.state === 'weak' ? { weakness: status.weakness, advice: SECRET_ADVICE } : undefined;
  }

  /** The value of a trigger's secret variable, or undefined when it is unset or empty. */
  async #secretOf(source: SecretSource): Promise<string | undefined> {
    const name = source.trigger.secretEnv;
    if (source.workspaceId) {
      // A trigger of a workspace deleted since: its secret went with it, and the server's
      // variable of the same name must not stand in for it (that would let another key sign).
      const values = await this.#deps.workspaceEnv(source.workspaceId).catch(() => undefined);
      if (values === undefined) return undefined;
      if (values[name]) return values[name];
    }
    return this.#deps.processSecret(name) || undefined;
  }

  listDeliveries = (filter: Parameters<WebhookRepositories['deliveries']['list']>[0]) => this.#deps.repositories.deliveries.list(filter);

  /**
   * One delivery. `traceparent`: the delivery's W3C trace context, already checked (the route drops a
   * malformed one): a run it starts continues that trace (docs/decisions.md, "Traces").
   */
  async receive(slug: string, raw: Uint8Array, signature: string | null, traceparent?: string): Promise<WebhookAnswer> {
    const receivedAt = this.#now();
    const note: Partial<DeliveryRecord> = {};
    const answer = await this.#decide(slug, raw, signature, receivedAt, note, traceparent);
    const delivery: DeliveryRecord = {
      id: newId('dlv'),
      slug,
      workflow: note.workflow ?? null,
      outcome: note.outcome ?? 'accepted',
      status: answer.status,
      event: note.event ?? null,
      key: note.key ?? null,
      runId: note.runId ?? null,
      receivedAt: new Date(receivedAt).toISOString(),
    };
    const { id: _id, receivedAt: _at, ...fields } = delivery;
    this.#deps.logger.info('webhook.delivery', fields);
    // The history is for people (it is listed from memory at once); its file write is not waited for.
    void this.#deps.repositories.deliveries.append(delivery).catch((e: unknown) => {
      this.#deps.logger.warn('webhook.delivery_log_failed', { slug, error: (e as Error).message });
    });
    this.#pruneNowAndThen(receivedAt);
    return answer;
  }

  async #decide(
    slug: string,
    raw: Uint8Array,
    signature: string | null,
    receivedAt: number,
    note: Partial<Mutable<DeliveryRecord>>,
    traceparent: string | undefined,
  ): Promise<WebhookAnswer> {
    const outcome = (o: DeliveryOutcome) => (note.outcome = o);
    const trigger = await this.#deps.findTrigger(slug);
    if (!trigger) {
      outcome('webhook_trigger_not_found');
      return refuse(
        'webhook_trigger_not_found',
        `No webhook trigger has the slug '${slug}'. Triggers are registered from the server's directory and registered workspaces, or with \`svc webhook register\`.`,
      );
    }
    note.workflow = trigger.workflow;
    const secret = await this.secretStatus(trigger);
    if (secret.state === 'missing') {
      outcome('webhook_secret_missing');
      return refuse(
        'webhook_secret_missing',
        `The secret variable ${trigger.trigger.secretEnv} is not set (workspace env vars, then the server's environment).`,
      );
    }
    if (secret.state === 'weak') {
      // Said without its measure: this answer goes to anyone on the internet.
      outcome('webhook_secret_weak');
      return refuse(
        'webhook_secret_weak',
        `The secret variable ${trigger.trigger.secretEnv} holds a value too easy to guess to sign deliveries with (a webhook secret is at least ${MIN_SECRET_LENGTH} random characters): ${SECRET_ADVICE}.`,
      );
    }
    if (!verifySignature(secret.secret, raw, signature)) {
      outcome('invalid_signature');
      return refuse('invalid_signature', 'The x-svc-signature-256 header is missing or is not the HMAC-SHA256 of the body.');
    }
    const payload = parsePayload(raw);
    if (!payload) {
      outcome('invalid_json');
      return refuse('invalid_json', 'The body is not a JSON object.');
    }
    const event = eventOf(payload);
    note.event = event ?? null;
    if (event !== trigger.trigger.event) {
      outcome('event_mismatch');
      return { status: 200, body: { skipped: 'event_mismatch' } };
    }
    if (!matchesFilter(payload, trigger.trigger.filter)) {
      outcome('filter_mismatch');
      return { status: 200, body: { skipped: 'filter_mismatch' } };
    }
    const key = idempotencyKeyOf(payload, trigger.trigger.idempotencyKey);
    // A key is an id, not a document: a 250 KB one would be kept in every record, log line and history entry.
    if (key === undefined || Buffer.byteLength(key) > MAX_IDEMPOTENCY_KEY_BYTES) {
      outcome('invalid_idempotency_key');
      return refuse(
        'invalid_idempotency_key',
        `The payload field '${trigger.trigger.idempotencyKey}' must be a non-empty string (at most ${MAX_IDEMPOTENCY_KEY_BYTES} bytes), a number or a boolean.`,
      );
    }
    note.key = key;
    // A signalling trigger continues the run the payload names (docs/decisions.md, "Waits and signals").
    let signalled: string | undefined;
    if (trigger.trigger.signal) {
      signalled = idempotencyKeyOf(payload, trigger.trigger.signal.runField);
      if (signalled === undefined || Buffer.byteLength(signalled) > MAX_RUN_ID_BYTES) {
        outcome('invalid_run_field');
        return refuse('invalid_run_field', `The payload field '${trigger.trigger.signal.runField}' must hold the id of the run to signal.`);
      }
      note.runId = signalled;
    }
    const id = createHash('sha256').update(`${slug}\n${key}`).digest('hex');
    // Deliveries of one key wait for each other, so the second sees the first's run.
    const previous = this.#inFlight.get(id) ?? Promise.resolve();
    const turn = previous.then(() => this.#dedupeAndStart(id, trigger, raw, key, event, receivedAt, note, signalled, traceparent));
    const settled = turn.catch(() => {});
    this.#inFlight.set(id, settled);
    try {
      return await turn;
    } finally {
      if (this.#inFlight.get(id) === settled) this.#inFlight.delete(id);
    }
  }

  async #dedupeAndStart(
    id: string,
    trigger: TriggerRecord,
    raw: Uint8Array,
    key: string,
    event: string,
    receivedAt: number,
    note: Partial<Mutable<DeliveryRecord>>,
    /** A signalling trigger's run: signalled instead of a new run started. */
    signalled: string | undefined,
    traceparent: string | undefined,
  ): Promise<WebhookAnswer> {
    const bodyHash = createHash('sha256').update(raw).digest('hex');
    const at = new Date(receivedAt).toISOString();
    const candidate: DedupeRecord = {
      id,
      slug: trigger.slug,
      key,
      bodyHash,
      runId: signalled ?? newId('run'),
      state: 'reserved',
      firstReceivedAt: at,
      expiresAt: receivedAt + trigger.trigger.dedupeWindowSec * 1000,
    };
    const { dedupe } = this.#deps.repositories;
    let record = candidate;
    const inserted = await dedupe.insertIfAbsent(candidate, receivedAt);
    if (!inserted.inserted) {
      const existing = inserted.existing;
      // A signalled run exists before its delivery: a reservation left by a crash is known by its age alone.
      const orphan =
        existing.state === 'reserved' &&
        receivedAt - Date.parse(existing.firstReceivedAt) >= (this.#deps.reservationGraceMs ?? 0) &&
        (signalled !== undefined || !(await this.#deps.runExists(existing.runId)));
      if (!orphan) {
        note.runId = existing.runId;
        if (existing.bodyHash !== bodyHash) {
          note.outcome = 'idempotency_key_conflict';
          return refuse('idempotency_key_conflict', `The idempotency key '${key}' was accepted at ${existing.firstReceivedAt} with a different payload.`);
        }
        note.outcome = 'duplicate';
        return { status: 200, body: { skipped: 'duplicate', run_id: existing.runId, first_received_at: existing.firstReceivedAt } };
      }
      // A crash came between reserving the key and creating its run: this delivery takes the run over.
      record = { ...candidate, runId: existing.runId, firstReceivedAt: existing.firstReceivedAt, expiresAt: existing.expiresAt };
      await dedupe.replace(record);
    }

    // The registry keeps the slug of a deleted workflow file as a tombstone: never start a namesake.
    if (trigger.removed) {
      await dedupe.release(record);
      return notAvailable(trigger, note);
    }
    if (signalled !== undefined) return this.#signal(record, trigger, new TextDecoder().decode(raw), note);
    // The registry's paths are those of the machine that found the workflow: where its directory
    // is missing here (removed, or another machine's path: docs/scaling.md), there is nothing to run.
    if (!(await isDirectory(trigger.cwd))) {
      await dedupe.release(record);
      return notAvailable(trigger, note, ` Its directory ${trigger.cwd} does not exist on server ${hostname()}.`);
    }
    const runId = record.runId;
    const text = new TextDecoder().decode(raw);
    const dir = this.#deps.artifactsDir(runId);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, PAYLOAD_FILE), raw);
      await this.#deps.startRun({
        runId,
        workflow: trigger.workflow,
        message: text,
        cwd: trigger.cwd,
        variables: {
          TRIGGER_TYPE: 'webhook',
          TRIGGER_PAYLOAD: text,
          TRIGGER_PAYLOAD_FILE: join(dir, PAYLOAD_FILE),
          WEBHOOK_EVENT: event,
          WEBHOOK_IDEMPOTENCY_KEY: key,
          WEBHOOK_RECEIVED_AT: at,
        },
        ...(traceparent ? { traceparent } : {}),
      });
    } catch (cause) {
      await dedupe.release(record);
      await rm(dir, { recursive: true, force: true });
      if (isDomainError(cause) && cause.code === 'workflow_not_found') return notAvailable(trigger, note);
      throw cause;
    }
    // The run exists now; if this write is lost to a crash, the `reserved` record still points at it.
    await dedupe.replace({ ...record, state: 'accepted' }, { sync: false });
    note.runId = runId;
    note.outcome = 'accepted';
    return { status: 202, body: { accepted: true, run_id: runId } };
  }

  /** A signalling trigger's accepted delivery: the run goes on, or the key is freed again for a retry. */
  async #signal(record: DedupeRecord, trigger: TriggerRecord, text: string, note: Partial<Mutable<DeliveryRecord>>): Promise<WebhookAnswer> {
    const { dedupe } = this.#deps.repositories;
    const event = trigger.trigger.signal!.event;
    try {
      await this.#deps.signalRun(record.runId, event, text);
    } catch (cause) {
      await dedupe.release(record);
      if (!isDomainError(cause) || !SIGNAL_REFUSALS.includes(cause.code)) throw cause;
      note.outcome = cause.code === 'not_waiting' ? 'not_waiting' : 'run_not_found';
      return refuse(cause.code, cause.message);
    }
    await dedupe.replace({ ...record, state: 'accepted' }, { sync: false });
    note.outcome = 'accepted';
    return { status: 202, body: { accepted: true, run_id: record.runId, signalled: event } };
  }

  #pruneNowAndThen(now: number): void {
    if (now - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = now;
    this.#deps.repositories.dedupe.pruneExpired(now).catch((e: unknown) => {
      this.#deps.logger.warn('webhook.prune_failed', { error: (e as Error).message });
    });
  }
}

function notAvailable(trigger: TriggerRecord, note: Partial<Mutable<DeliveryRecord>>, why = ''): WebhookAnswer {
  note.outcome = 'workflow_not_available';
  return refuse('workflow_not_available', `The workflow '${trigger.workflow}' of trigger '${trigger.slug}' is no longer available.${why}`);
}

const isDirectory = (path: string) =>
  stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
