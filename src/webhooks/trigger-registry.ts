/**
 * The persistent registry of webhook triggers: slug → the workflow, workspace and directory it
 * was found in, and the trigger itself. The webhook endpoint looks slugs up here, so a trigger
 * keeps answering while the server restarts, and a slug whose workflow file has since been
 * removed is still known (the webhook answers 409 `workflow_not_available`, not 404).
 *
 * A registering pass (catalog.ts `registerTriggers`: the server's own directory and workspaces,
 * or an explicit call) refreshes the records of the directories it read, and only those: a pass
 * for one cwd never drops the triggers found under another; a listing only checks (`check`).
 * The records are kept by a repository (trigger-repository.ts): the file store, or a database
 * several servers share (docs/scaling.md). There, every write is conditional on the record
 * decided on, so concurrent passes of several servers are serialized per slug and "first come,
 * first served" holds across them; and a server judges only the records of its own machine
 * (`host`), whose paths it can see.
 */

import { access } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Store } from '../store/index.js';
import type { Discovery, DiscoveryError, TriggerRegistryPort } from '../catalog/index.js';
import { placeIn } from '../workflows/index.js';
import { openTriggerRepository, TRIGGERS_COLLECTION, type TriggerRecord, type TriggerRepository } from './trigger-repository.js';

export { TRIGGERS_COLLECTION, type TriggerRecord, type TriggerRepository } from './trigger-repository.js';

interface Claim {
  readonly record: TriggerRecord;
  /** Where the slug is written, to point the error at it. */
  readonly text: string;
  readonly index: number;
}

/** How often a write refused because another server changed the slug meanwhile is decided again. */
const MAX_ATTEMPTS = 20;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A record as stored (no undefined members), without its host: what two registrations compare on. */
const registration = ({ host: _host, ...record }: TriggerRecord) => JSON.parse(JSON.stringify(record)) as unknown;

function conflictError(claim: Claim, other: TriggerRecord, tail: string): DiscoveryError {
  const { filename, slug } = claim.record;
  const place = placeIn(claim.text, filename, ['triggers', 'webhook', claim.index, 'slug']);
  return {
    filename,
    error: `${place}triggers.webhook[${claim.index}].slug: slug '${slug}' is also claimed by workflow '${other.workflow}' (${other.filename}); ${tail}`,
  };
}

function claimsOf(discovery: Discovery, cwd: string, host: string | undefined): Claim[] {
  return discovery.workflows.flatMap((w) =>
    w.workflow.triggers.webhook.map((trigger, index) => ({
      text: w.text,
      index,
      record: {
        id: trigger.slug,
        slug: trigger.slug,
        workflow: w.name,
        workspaceId: w.workspaceId,
        cwd: w.root ?? cwd,
        filename: w.filename,
        trigger,
        ...(host === undefined ? {} : { host }),
      },
    })),
  );
}

export interface TriggerRegistryOptions {
  /** `false` (a read-only store, the CLI's offline reads): conflicts are found, nothing is saved. */
  readonly writable: boolean;
  /** With a shared database: this machine's host name, recorded on what it registers. */
  readonly host?: string;
}

export class TriggerRegistry implements TriggerRegistryPort<TriggerRecord> {
  /** Passes are serialized: two concurrent listings must not interleave their writes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly repository: TriggerRepository,
    private readonly options: TriggerRegistryOptions,
  ) {}

  /** The registry on the file store's `webhook-triggers` collection. */
  static async open(store: Store, writable: boolean): Promise<TriggerRegistry> {
    return new TriggerRegistry(await openTriggerRepository(store), { writable });
  }

  /** The trigger registered under `slug`, if any. */
  find(slug: string): Promise<TriggerRecord | undefined> {
    return this.repository.find(slug);
  }

  /** The live triggers (not the tombstones of removed workflows), by slug. */
  all(): Promise<TriggerRecord[]> {
    return this.repository.listLive();
  }

  /** Brings the records of the directories `discovery` read up to date; returns the slug conflicts. */
  refresh(discovery: Discovery, cwd: string): Promise<DiscoveryError[]> {
    const pass = this.queue.then(() => this.apply(discovery, cwd, this.options.writable));
    this.queue = pass.catch(() => {});
    return pass;
  }

  /**
   * The slug conflicts a refresh with `discovery` would meet, found without writing anything: what
   * a listing reports (a GET changes no state: docs/decisions.md, "Webhooks").
   */
  check(discovery: Discovery, cwd: string): Promise<DiscoveryError[]> {
    return this.apply(discovery, cwd, false);
  }

  /** Whether this server can tell if the record's paths still exist: it was registered on this machine. */
  private judges(record: TriggerRecord): boolean {
    return record.host === undefined || record.host === this.options.host;
  }

  /** Whether a registration from a directory this pass did not read still holds its slug: first come, first served. */
  private async stands(held: TriggerRecord): Promise<boolean> {
    // Another machine's file cannot be looked at from here: it stands until that machine's server drops it.
    if (!this.judges(held)) return !held.removed;
    return exists(held.filename);
  }

  private async apply(discovery: Discovery, cwd: string, write: boolean): Promise<DiscoveryError[]> {
    const scope = new Set([cwd, ...discovery.roots.map((root) => root.dir)]);
    const bySlug = new Map<string, Claim[]>();
    for (const claim of claimsOf(discovery, cwd, this.options.host)) bySlug.set(claim.record.slug, [...(bySlug.get(claim.record.slug) ?? []), claim]);

    const errors: DiscoveryError[] = [];
    const wanted = new Set<string>();
    for (const [slug, claims] of bySlug) {
      if (claims.length > 1) {
        for (const claim of claims) {
          const other = claims.find((c) => c !== claim) as Claim;
          errors.push(conflictError(claim, other.record, 'a slug must be unique, so neither trigger is registered'));
        }
        continue;
      }
      const conflict = await this.register(claims[0] as Claim, scope, write);
      if (conflict) errors.push(conflict);
      else wanted.add(slug);
    }

    if (write) {
      for (const held of await this.repository.listUnder([...scope])) {
        if (wanted.has(held.slug) || held.removed || !this.judges(held)) continue;
        // A trigger taken out of a file that still exists is gone; one whose file was deleted is a
        // tombstone. Refused when another server changed it meanwhile: its record is the newer.
        if (await exists(held.filename)) await this.repository.delete(held);
        else await this.repository.markRemoved(held);
      }
    }
    return errors;
  }

  /** Registers one claim unless a registration elsewhere stands; the conflict, if one does. */
  private async register(claim: Claim, scope: Set<string>, write: boolean): Promise<DiscoveryError | undefined> {
    const { record } = claim;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const held = await this.repository.find(record.slug);
      // Held by a workflow under a directory this pass did not read, whose file still exists.
      if (held !== undefined && !scope.has(held.cwd) && held.filename !== record.filename && (await this.stands(held))) {
        return conflictError(claim, held, `that registration stands, so this trigger is not registered`);
      }
      if (!write) return undefined;
      // The same registration by another server of the same files: left as it is, so servers do not take turns rewriting it.
      if (held !== undefined && isDeepStrictEqual(registration(held), registration(record)) && (held.host !== undefined || record.host === undefined))
        return undefined;
      if (await this.repository.put(record, held)) return undefined;
    }
    throw new Error(`the registration of webhook slug '${record.slug}' kept changing under this server's refresh`);
  }
}

/**
 * The trigger registered under `slug`, read straight from the store — for code that has a store
 * but no catalog (the webhook endpoint may use either this or `WorkflowCatalog.findTrigger`).
 */
export async function findTrigger(store: Store, slug: string): Promise<TriggerRecord | undefined> {
  return (await store.collection<TriggerRecord>(TRIGGERS_COLLECTION, 'single')).get(slug);
}
