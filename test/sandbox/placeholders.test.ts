// The empty files a sandbox mounts in a writable directory (src/sandbox/placeholders.ts): never part
// of svc's commit of a node's change, and removed after a crash only where git does not track them
// and they are still empty — a file with content, or one the repository holds, is the user's.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeLeftPlaceholders } from '../../src/sandbox/index.js';
import { commitAll } from '../../src/workspaces/commits.js';
import { git, makeRepository } from '../helpers/git.js';
import { cleanupAll, tempDir } from '../helpers/runs.js';

afterAll(cleanupAll);

const gitEnv = { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } };

it("svc's commit leaves the empty placeholders out, and with nothing else changed makes none", async () => {
  const repo = makeRepository(await tempDir('svc-placeholders-'), { 'README.md': '# r\n' });
  await writeFile(join(repo, '.bashrc'), '');
  await writeFile(join(repo, '.mcp.json'), '');
  expect(await commitAll(repo, { subject: 'only placeholders', runId: 'run_1' }, gitEnv)).toMatchObject({ commit: null });
  await writeFile(join(repo, 'real.txt'), 'work\n');
  const { commit } = await commitAll(repo, { subject: 'node', runId: 'run_1' }, gitEnv);
  expect(git(repo, 'show', '--name-only', '--format=', commit!)).toBe('real.txt');
  // A placeholder name with content is a file of the node's like any other.
  await writeFile(join(repo, '.profile'), 'export A=1\n');
  const next = await commitAll(repo, { subject: 'node 2', runId: 'run_1' }, gitEnv);
  expect(git(repo, 'show', '--name-only', '--format=', next.commit!)).toBe('.profile');
});

it('after a crash: the untracked empty ones are removed; tracked or non-empty ones stay', async () => {
  const repo = makeRepository(await tempDir('svc-placeholders-'), { 'README.md': '# r\n', '.gitmodules': '' });
  await writeFile(join(repo, '.bashrc'), '');
  await writeFile(join(repo, '.vscode'), '');
  await writeFile(join(repo, '.zshrc'), 'mine\n');
  await mkdir(join(repo, '.claude', 'commands'), { recursive: true });
  const removed = await removeLeftPlaceholders(repo);
  expect(removed.sort()).toEqual(['.bashrc', '.claude/', '.claude/commands/', '.vscode'].sort());
  expect(existsSync(join(repo, '.gitmodules'))).toBe(true);
  expect(existsSync(join(repo, '.zshrc'))).toBe(true);
  expect(git(repo, 'status', '--porcelain')).toBe('?? .zshrc');
  // Outside a git checkout nothing is touched: git cannot tell a placeholder from the user's file.
  const plain = await tempDir('svc-placeholders-plain-');
  await writeFile(join(plain, '.bashrc'), '');
  expect(await removeLeftPlaceholders(plain)).toEqual([]);
  expect(existsSync(join(plain, '.bashrc'))).toBe(true);
});
