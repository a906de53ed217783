// The workspace service ignores GIT_DIR and the like that it inherits from a git hook: its git
// commands act on the repositories they name, never on the hook's.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/logger.js';
import { openFileStore } from '../../src/store/index.js';
import { openWorkspaceRepositories } from '../../src/workspaces/repository.js';
import { localCoordination } from '../../src/coordination/local.js';
import { WorkspaceService } from '../../src/workspaces/service.js';
import { cleanupAll, onCleanup, tempDir } from '../helpers/runs.js';
import { gitProject } from '../helpers/registered-project.js';

afterEach(cleanupAll);

it('ignores GIT_DIR and the like inherited from a git hook', async () => {
  const home = await tempDir('svc-hard-home-');
  const other = await gitProject();
  const logger = createLogger({ level: 'error' });
  const store = await openFileStore({ home, logger, lock: 'server' });
  onCleanup(() => store.close());
  const service = new WorkspaceService({
    repositories: await openWorkspaceRepositories(store),
    logger,
    home,
    env: { ...process.env, GIT_DIR: join(other, '.git'), GIT_WORK_TREE: other },
    runs: { finishedAt: async () => undefined },
    homes: localCoordination().homes,
  });
  const plain = await tempDir('svc-hard-plain-');
  expect((await service.register({ path: plain })).default_branch).toBe('');
  expect(execFileSync('git', ['-C', other, 'worktree', 'list'], { encoding: 'utf8' }).trim().split('\n')).toHaveLength(1);
});
