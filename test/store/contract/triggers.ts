/**
 * The webhook trigger registry's contract (src/webhooks/trigger-repository.ts), for every store, and
 * the registry on it as several servers use it: concurrent refreshes serialized per slug, first come
 * first served across directories, nothing rewritten back and forth, another machine's records left
 * to that machine.
 */

import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { discoverWorkflows } from '../../../src/catalog/index.js';
import { TriggerRegistry, type TriggerRecord } from '../../../src/webhooks/index.js';
import { makeProject, webhookTriggers, workflowYaml, type Project } from '../../helpers/workflow-project.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const record = (slug: string, fields: Partial<TriggerRecord> = {}): TriggerRecord => ({
  id: slug,
  slug,
  workflow: 'deploy',
  workspaceId: null,
  cwd: '/srv/project',
  filename: '/srv/project/.svc/workflows/deploy.yaml',
  trigger: { event: 'push', slug, secretEnv: 'PUSH_SECRET', idempotencyKey: 'delivery_id', dedupeWindowSec: 3600, filter: { ref: 'refs/heads/main' } },
  ...fields,
});

const projects: Project[] = [];
afterEach(async () => {
  for (const project of projects.splice(0)) await project.remove();
});

/** A project whose workflow `name` has webhook triggers `slugs`. */
async function projectWith(name: string, ...slugs: string[]): Promise<{ project: Project; file: string }> {
  const project = await makeProject();
  projects.push(project);
  return { project, file: await project.write(`${name}.yaml`, workflowYaml(name, { extra: webhookTriggers(...slugs) })) };
}

// No bundled workflows: only the project's own.
const discover = (project: Project) => discoverWorkflows({ cwd: project.dir, bundledDir: join(project.dir, 'no-bundled') });

export function triggerRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('finds by slug, lists the live ones by slug and the ones under given directories, across a reopen', async () => {
    let repository = await stores.current().triggers();
    expect(await repository.find('b')).toBeUndefined();
    expect(await repository.put(record('b'), undefined)).toBe(true);
    expect(await repository.put(record('a', { cwd: '/srv/other', filename: '/srv/other/.svc/workflows/a.yaml' }), undefined)).toBe(true);
    expect(await repository.put(record('c', { host: 'machine-1' }), undefined)).toBe(true);
    expect(await repository.markRemoved(record('c', { host: 'machine-1' }))).toBe(true);
    expect(await repository.find('b')).toEqual(record('b'));
    expect(await repository.find('c')).toEqual(record('c', { host: 'machine-1', removed: true }));
    expect((await repository.listLive()).map((t) => t.slug)).toEqual(['a', 'b']);
    expect((await repository.listUnder(['/srv/project'])).map((t) => t.slug).sort()).toEqual(['b', 'c']);
    expect((await repository.listUnder(['/srv/other', '/srv/none'])).map((t) => t.slug)).toEqual(['a']);
    expect(await repository.listUnder([])).toEqual([]);

    repository = await (await stores.reopen()).triggers();
    expect(await repository.find('a')).toEqual(record('a', { cwd: '/srv/other', filename: '/srv/other/.svc/workflows/a.yaml' }));
    expect((await repository.listLive()).map((t) => t.slug)).toEqual(['a', 'b']);
  });

  it('writes only over the record the writer read: put, delete and markRemoved refuse a stale one', async () => {
    const repository = await stores.current().triggers();
    expect(await repository.put(record('s'), undefined)).toBe(true);
    // Already there: an insert is refused.
    expect(await repository.put(record('s', { workflow: 'other' }), undefined)).toBe(false);
    const read = (await repository.find('s'))!;
    expect(await repository.put(record('s', { workflow: 'next' }), read)).toBe(true);
    expect(await repository.put(record('s', { workflow: 'late' }), read)).toBe(false);
    expect(await repository.delete(read)).toBe(false);
    expect(await repository.markRemoved(read)).toBe(false);
    expect(await repository.find('s')).toEqual(record('s', { workflow: 'next' }));
    const fresh = (await repository.find('s'))!;
    expect(await repository.delete(fresh)).toBe(true);
    expect(await repository.find('s')).toBeUndefined();
    expect(await repository.delete(fresh)).toBe(false);
  });

  it('of concurrent first registrations of one slug, exactly one is stored', async () => {
    const repository = await stores.current().triggers();
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => repository.put(record('race', { workflow: `w${i}` }), undefined)));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await repository.find('race'))!.workflow).toBe(`w${outcomes.indexOf(true)}`);
  });

  it('two servers refreshing at once, one slug in two directories: one registration stands, the other is told, and it stays so', async () => {
    const store = stores.current();
    const [a, b] = [new TriggerRegistry(await store.triggers(), { writable: true }), new TriggerRegistry(await store.triggers(), { writable: true })];
    const first = await projectWith('one', 'hook', 'only-one');
    const second = await projectWith('two', 'hook', 'only-two');
    const [fromFirst, fromSecond] = [await discover(first.project), await discover(second.project)];
    const [errorsA, errorsB] = await Promise.all([a.refresh(fromFirst, first.project.dir), b.refresh(fromSecond, second.project.dir)]);
    // Exactly one pass lost the slug, and says so.
    expect([...errorsA, ...errorsB]).toHaveLength(1);
    const held = (await (await store.triggers()).find('hook'))!;
    const loser = held.workflow === 'one' ? { errors: errorsB, file: second.file } : { errors: errorsA, file: first.file };
    expect(loser.errors[0]).toMatchObject({ filename: loser.file, error: expect.stringContaining('that registration stands') });
    expect((await a.all()).map((t) => t.slug)).toEqual(['hook', 'only-one', 'only-two']);

    // Further passes of both, in either order or at once, change nothing: first come, first served.
    for (let round = 0; round < 3; round++) {
      await Promise.all([a.refresh(fromFirst, first.project.dir), b.refresh(fromSecond, second.project.dir)]);
      await b.refresh(fromSecond, second.project.dir);
      expect(await (await store.triggers()).find('hook')).toEqual(held);
    }
  });

  it("with hosts: the same registration seen by two machines is written once; another machine's record is neither taken nor dropped", async () => {
    const store = stores.current();
    const onA = new TriggerRegistry(await store.triggers(), { writable: true, host: 'machine-a' });
    const onB = new TriggerRegistry(await store.triggers(), { writable: true, host: 'machine-b' });
    const shared = await projectWith('shared', 'same');
    const seen = await discover(shared.project);
    expect(await onA.refresh(seen, shared.project.dir)).toEqual([]);
    const first = await onA.find('same');
    expect(first).toMatchObject({ workflow: 'shared', host: 'machine-a' });
    // Machine B reads the same directory with the same files: nothing to write, so no turns taken.
    expect(await onB.refresh(seen, shared.project.dir)).toEqual([]);
    expect(await onB.find('same')).toEqual(first);

    // B cannot see A's file any more (it is another machine's): A's registration still stands against B's claim, and B's pass of that directory does not drop it.
    await unlink(shared.file);
    const elsewhere = await projectWith('elsewhere', 'same');
    const errors = await onB.refresh(await discover(elsewhere.project), elsewhere.project.dir);
    expect(errors).toEqual([{ filename: elsewhere.file, error: expect.stringContaining('that registration stands') }]);
    await onB.refresh(await discover(shared.project), shared.project.dir);
    expect(await onB.find('same')).toEqual(first);

    // A, whose machine it is, sees the file gone: its pass makes the record a tombstone, and B's claim then takes the slug.
    await onA.refresh(await discover(shared.project), shared.project.dir);
    expect(await onA.find('same')).toEqual({ ...first, removed: true });
    expect(await onB.refresh(await discover(elsewhere.project), elsewhere.project.dir)).toEqual([]);
    expect(await onA.find('same')).toMatchObject({ workflow: 'elsewhere', host: 'machine-b', cwd: elsewhere.project.dir });
  });
}
