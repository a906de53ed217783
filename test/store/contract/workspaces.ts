/** The workspace repositories' contract (src/workspaces/repository.ts), for every store. */

import { expect, it } from 'vitest';
import type { Environment, WorkspaceRecord } from '../../../src/workspaces/records.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

export const workspace = (n: number, fields: Partial<WorkspaceRecord> = {}): WorkspaceRecord => ({
  id: `ws_${String(n).padStart(4, '0')}`,
  name: `repo-${n}`,
  path: `/srv/repo-${n}`,
  source: 'path',
  default_branch: 'main',
  allow_env_keys: false,
  env_scan: { status: 'clean', files: [], keys: [], unreadable: [] },
  env_keys: [],
  created_at: at(n),
  source_key: `/srv/repo-${n}`,
  ...fields,
});

const environment = (n: number, fields: Partial<Environment> = {}): Environment => ({
  id: `env_${String(n).padStart(4, '0')}`,
  workspace_id: 'ws_0001',
  repository: '/srv/repo-1',
  path: `/srv/worktrees/${n}`,
  branch: `svc/run-${n}`,
  run_id: `run_${n}`,
  created_at: at(n),
  ...fields,
});

export function workspaceRepositoryContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('inserts a workspace once per source key; the second insert gets the first record', async () => {
    const { workspaces } = await stores.current().workspaces();
    expect(await workspaces.insertIfAbsent(workspace(1))).toEqual({ inserted: true, record: workspace(1) });
    const again = await workspaces.insertIfAbsent(workspace(2, { source_key: workspace(1).source_key }));
    expect(again).toEqual({ inserted: false, existing: workspace(1) });
    expect(await workspaces.get('ws_0001')).toEqual(workspace(1));
    expect(await workspaces.get('ws_0002')).toBeUndefined();
    expect(await workspaces.findBySourceKey('/srv/repo-1')).toEqual(workspace(1));
    expect(await workspaces.findBySourceKey('/srv/nothing')).toBeUndefined();
  });

  it('concurrent inserts of one source key make exactly one workspace', async () => {
    const { workspaces } = await stores.current().workspaces();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => workspaces.insertIfAbsent(workspace(i + 1, { source_key: 'same' }))));
    const inserted = results.filter((r) => r.inserted);
    expect(inserted).toHaveLength(1);
    const winner = inserted[0]!.inserted ? inserted[0]!.record.id : '';
    for (const r of results) expect(r.inserted ? r.record.id : r.existing.id).toBe(winner);
    expect((await workspaces.list()).total).toBe(1);
  });

  it('lists oldest first (ties by id), paged, with the total; 50 by default', async () => {
    const { workspaces } = await stores.current().workspaces();
    for (const n of [3, 1, 2]) await workspaces.insertIfAbsent(workspace(n));
    await workspaces.insertIfAbsent(workspace(4, { created_at: at(2) }));
    const ids = (page: { items: WorkspaceRecord[] }) => page.items.map((w) => w.id);
    expect(ids(await workspaces.list())).toEqual(['ws_0001', 'ws_0002', 'ws_0004', 'ws_0003']);
    expect(await workspaces.list({ limit: 2, offset: 1 })).toMatchObject({ total: 4 });
    expect(ids(await workspaces.list({ limit: 2, offset: 1 }))).toEqual(['ws_0002', 'ws_0004']);
    expect(await workspaces.list({ offset: 10 })).toEqual({ items: [], total: 4 });
    for (let n = 5; n <= 55; n++) await workspaces.insertIfAbsent(workspace(n));
    expect(await workspaces.list()).toMatchObject({ total: 55, items: expect.objectContaining({ length: 50 }) });
  });

  it('resolves a workspace by id, by name or by a unique id prefix; an ambiguous one lists the candidates, oldest first', async () => {
    const { workspaces } = await stores.current().workspaces();
    await workspaces.insertIfAbsent(workspace(1, { id: 'ws_aaaa1111', name: 'api' }));
    await workspaces.insertIfAbsent(workspace(2, { id: 'ws_aaaa2222', name: 'web' }));
    await workspaces.insertIfAbsent(workspace(3, { id: 'ws_bbbb3333', name: 'web' }));
    await workspaces.insertIfAbsent(workspace(4, { id: 'ws_cccc4444', name: 'a_%' }));
    expect((await workspaces.resolve('ws_aaaa2222')).name).toBe('web');
    expect((await workspaces.resolve('api')).id).toBe('ws_aaaa1111');
    expect((await workspaces.resolve('ws_bbbb')).id).toBe('ws_bbbb3333');
    expect((await workspaces.resolve('a_%')).id).toBe('ws_cccc4444');
    await expect(workspaces.resolve('ws_aaaa')).rejects.toMatchObject({
      code: 'ambiguous_workspace',
      details: { matches: ['ws_aaaa1111', 'ws_aaaa2222'] },
      message: expect.stringContaining('ws_aaaa1111 (api, /srv/repo-1)'),
    });
    // Two workspaces of one name (two clones called `web`): the name alone tells them not apart.
    await expect(workspaces.resolve('web')).rejects.toMatchObject({ code: 'ambiguous_workspace', details: { matches: ['ws_aaaa2222', 'ws_bbbb3333'] } });
    // Too short to be a prefix (counted after `ws_`), LIKE's wildcards are characters, and no name is a prefix.
    for (const ref of ['ws_', 'ws_aaa', 'ws_%', 'ws____', 'ap', 'nothing'])
      await expect(workspaces.resolve(ref)).rejects.toMatchObject({ code: 'workspace_not_found' });
  });

  it('updates merge into the record and keep its id; deletes free the source key; all of it survives a reopen', async () => {
    let { workspaces } = await stores.current().workspaces();
    await workspaces.insertIfAbsent(workspace(1));
    await workspaces.insertIfAbsent(workspace(2));
    const updated = await workspaces.update('ws_0001', { allow_env_keys: true, env_keys: ['A', 'B'], url: 'https://example.test/r.git' });
    expect(updated).toEqual({ ...workspace(1), allow_env_keys: true, env_keys: ['A', 'B'], url: 'https://example.test/r.git' });
    expect(await workspaces.update('ws_9999', { name: 'x' })).toBeUndefined();
    expect(await workspaces.delete('ws_0002')).toBe(true);
    expect(await workspaces.delete('ws_0002')).toBe(false);

    ({ workspaces } = await (await stores.reopen()).workspaces());
    expect(await workspaces.get('ws_0001')).toEqual(updated);
    expect(await workspaces.get('ws_0002')).toBeUndefined();
    expect(await workspaces.insertIfAbsent(workspace(3, { source_key: '/srv/repo-2' }))).toMatchObject({ inserted: true });
  });

  it('environments: listed newest first, filtered by workspace and run, paged; updated and deleted', async () => {
    let { environments } = await stores.current().workspaces();
    await environments.insert(environment(1));
    await environments.insert(environment(2, { workspace_id: 'ws_0002' }));
    await environments.insert(environment(3));
    await environments.insert(environment(4, { run_id: 'run_1' }));
    const ids = (page: { items: Environment[] }) => page.items.map((e) => e.id);
    expect(ids(await environments.list())).toEqual(['env_0004', 'env_0003', 'env_0002', 'env_0001']);
    expect(await environments.list({ workspaceId: 'ws_0001', limit: 1, offset: 1 })).toEqual({ items: [environment(3)], total: 3 });
    expect(ids(await environments.list({ runId: 'run_1' }))).toEqual(['env_0004', 'env_0001']);
    expect(ids(await environments.list({ workspaceId: 'ws_0002', runId: 'run_1' }))).toEqual([]);
    expect(await environments.get('env_0002')).toEqual(environment(2, { workspace_id: 'ws_0002' }));

    expect(await environments.update('env_0001', { path: '/moved' })).toEqual(environment(1, { path: '/moved' }));
    expect(await environments.update('env_9999', { path: '/x' })).toBeUndefined();
    expect(await environments.delete('env_0003')).toBe(true);
    expect(await environments.delete('env_0003')).toBe(false);
    ({ environments } = await (await stores.reopen()).workspaces());
    expect(ids(await environments.list({ workspaceId: 'ws_0001' }))).toEqual(['env_0004', 'env_0001']);
    expect(await environments.get('env_0001')).toEqual(environment(1, { path: '/moved' }));
  });

  it('env values: merged per workspace with the names now set, unset one by one, cleared, and kept across a reopen', async () => {
    let { secrets } = await stores.current().workspaces();
    expect(await secrets.get('ws_0001')).toEqual({});
    expect(await secrets.merge('ws_0001', { TOKEN: 'a', API_URL: 'https://x' })).toEqual(['API_URL', 'TOKEN']);
    expect(await secrets.merge('ws_0001', { TOKEN: 'b', Z: '' })).toEqual(['API_URL', 'TOKEN', 'Z']);
    expect(await secrets.merge('ws_0002', { OTHER: '1' })).toEqual(['OTHER']);
    expect(await secrets.merge('ws_0002', {})).toEqual(['OTHER']);
    expect(await secrets.unset('ws_0001', 'Z')).toBe(true);
    expect(await secrets.unset('ws_0001', 'Z')).toBe(false);
    expect(await secrets.get('ws_0001')).toEqual({ TOKEN: 'b', API_URL: 'https://x' });

    ({ secrets } = await (await stores.reopen()).workspaces());
    expect(await secrets.get('ws_0001')).toEqual({ TOKEN: 'b', API_URL: 'https://x' });
    await secrets.clear('ws_0001');
    expect(await secrets.get('ws_0001')).toEqual({});
    expect(await secrets.get('ws_0002')).toEqual({ OTHER: '1' });
  });
}
