/**
 * The persistent registry of webhook triggers: slug → the workflow, workspace and directory it
 * was found in, and the trigger itself. The webhook endpoint looks slugs up here, so a trigger
 * keeps answering while the server restarts, and a slug whose workflow file has since been
 * removed is still known (the webhook answers 409 `workflow_not_available`, not 404).
 *
 * Each discovery pass refreshes the records of the directories it read, and only those: a pass
 * for one cwd never drops the triggers found under another.
 */

import { access } from 'node:fs/promises';
import type { Collection, Store } from '../store/index.js';
import type { Discovery, DiscoveryError } from './discovery.js';
import type { WebhookTrigger } from '../workflows/schema.js';
import { placeIn } from '../workflows/workflow-file.js';

export interface TriggerRecord {
  /** The slug (the collection's key). */
  readonly id: string;
  readonly slug: string;
  readonly workflow: string;
  readonly workspaceId: string | null;
  /** Where a run it starts works: the project root the workflow was found under. */
  readonly cwd: string;
  readonly filename: string;
  /** Normalized: camelCase, `dedupeWindowSec` defaulted. */
  readonly trigger: WebhookTrigger;
  /**
   * The workflow file is gone: the slug stays known (a tombstone), so the webhook answers 409
   * `workflow_not_available` rather than 404, until another workflow claims the slug.
   */
  readonly removed?: true;
}

export const TRIGGERS_COLLECTION = 'webhook-triggers';

interface Claim {
  readonly record: TriggerRecord;
  /** Where the slug is written, to point the error at it. */
  readonly text: string;
  readonly index: number;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

function conflictError(claim: Claim, other: TriggerRecord, tail: string): DiscoveryError {
  const { filename, slug } = claim.record;
  const place = placeIn(claim.text, filename, ['triggers', 'webhook', claim.index, 'slug']);
  return {
    filename,
    error: `${place}triggers.webhook[${claim.index}].slug: slug '${slug}' is also claimed by workflow '${other.workflow}' (${other.filename}); ${tail}`,
  };
}

function claimsOf(discovery: Discovery, cwd: string): Claim[] {
  return discovery.workflows.flatMap((w) =>
    w.workflow.triggers.webhook.map((trigger, index) => ({
      text: w.text,
      index,
      record: { id: trigger.slug, slug: trigger.slug, workflow: w.name, workspaceId: w.workspaceId, cwd: w.root ?? cwd, filename: w.filename, trigger },
    })),
  );
}

export class TriggerRegistry {
  /** Passes are serialized: two concurrent listings must not interleave their writes. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly collection: Collection<TriggerRecord>,
    private readonly writable: boolean,
  ) {}

  /** `writable: false` (a read-only store, the CLI's offline reads): conflicts are found, nothing is saved. */
  static async open(store: Store, writable: boolean): Promise<TriggerRegistry> {
    return new TriggerRegistry(await store.collection<TriggerRecord>(TRIGGERS_COLLECTION, 'single'), writable);
  }

  /** The trigger registered under `slug`, if any. */
  find(slug: string): TriggerRecord | undefined {
    return this.collection.get(slug);
  }

  /** The live triggers (not the tombstones of removed workflows). */
  all(): TriggerRecord[] {
    return this.collection
      .all()
      .filter((t) => !t.removed)
      .sort((a, b) => a.slug.localeCompare(b.slug));
  }

  /** Brings the records of the directories `discovery` read up to date; returns the slug conflicts. */
  refresh(discovery: Discovery, cwd: string): Promise<DiscoveryError[]> {
    const pass = this.queue.then(() => this.apply(discovery, cwd));
    this.queue = pass.catch(() => {});
    return pass;
  }

  private async apply(discovery: Discovery, cwd: string): Promise<DiscoveryError[]> {
    const scope = new Set([cwd, ...discovery.roots.map((root) => root.dir)]);
    const bySlug = new Map<string, Claim[]>();
    for (const claim of claimsOf(discovery, cwd)) bySlug.set(claim.record.slug, [...(bySlug.get(claim.record.slug) ?? []), claim]);

    const errors: DiscoveryError[] = [];
    const wanted = new Map<string, TriggerRecord>();
    for (const [slug, claims] of bySlug) {
      if (claims.length > 1) {
        for (const claim of claims) {
          const other = claims.find((c) => c !== claim) as Claim;
          errors.push(conflictError(claim, other.record, 'a slug must be unique, so neither trigger is registered'));
        }
        continue;
      }
      const claim = claims[0] as Claim;
      const held = this.collection.get(slug);
      // Held by a workflow under a directory this pass did not read, whose file still exists: first come, first served.
      if (held !== undefined && !scope.has(held.cwd) && held.filename !== claim.record.filename && (await exists(held.filename))) {
        errors.push(conflictError(claim, held, `that registration stands, so this trigger is not registered`));
        continue;
      }
      wanted.set(slug, claim.record);
    }

    if (this.writable) {
      for (const held of this.collection.all()) {
        if (!scope.has(held.cwd) || wanted.has(held.slug) || held.removed) continue;
        // A trigger taken out of a file that still exists is gone; one whose file was deleted is a tombstone.
        if (await exists(held.filename)) await this.collection.delete(held.id);
        else await this.collection.put({ ...held, removed: true });
      }
      for (const record of wanted.values()) {
        const held = this.collection.get(record.id);
        if (held === undefined || JSON.stringify(held) !== JSON.stringify(record)) await this.collection.put(record);
      }
    }
    return errors;
  }
}

/**
 * The trigger registered under `slug`, read straight from the store — for code that has a store
 * but no catalog (the webhook endpoint may use either this or `WorkflowCatalog.findTrigger`).
 */
export async function findTrigger(store: Store, slug: string): Promise<TriggerRecord | undefined> {
  return (await store.collection<TriggerRecord>(TRIGGERS_COLLECTION, 'single')).get(slug);
}
