import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, lstatSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempDir } from './runs.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'svc test',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 'svc test',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/**
 * Points git at an empty global configuration, and no system one, for the rest of this test file's
 * process: the machine's own (a signing key, hooks, `init.defaultBranch`) must not reach svc's git.
 */
export async function useEmptyGitConfig(): Promise<void> {
  const empty = join(await tempDir('svc-gitconfig-'), 'gitconfig');
  writeFileSync(empty, '');
  process.env.GIT_CONFIG_GLOBAL = empty;
  process.env.GIT_CONFIG_NOSYSTEM = '1';
}

export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

/** A work tree with one commit on `main`, holding the given files. */
export function makeRepository(dir: string, files: Record<string, string> = { 'README.md': '# demo\n' }): string {
  git(dir, 'init', '-q', '-b', 'main', '.');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** A bare repository (the thing one clones by file:// URL) made from a fresh work tree. */
export function makeBareRepository(parent: string, name: string, files?: Record<string, string>): string {
  const work = join(parent, `${name}-work`);
  execFileSync('mkdir', ['-p', work]);
  makeRepository(work, files);
  const bare = join(parent, `${name}.git`);
  git(parent, 'clone', '-q', '--bare', work, bare);
  return bare;
}

/** A digest of every file, link and directory below `dir` (`.git` left out with `skipGit`): equal digests mean byte-for-byte equal trees. */
export function treeDigest(dir: string, { skipGit = false } = {}): string {
  const hash = createHash('sha256');
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      if (skipGit && at === dir && name === '.git') continue;
      const path = join(at, name);
      const info = lstatSync(path);
      const rel = relative(dir, path);
      if (info.isSymbolicLink()) hash.update(`L ${rel} ${readlinkSync(path)}\n`);
      else if (info.isDirectory()) {
        hash.update(`D ${rel}\n`);
        walk(path);
      } else hash.update(`F ${rel} ${info.mode} `).update(readFileSync(path)).update('\n');
    }
  };
  walk(dir);
  return hash.digest('hex');
}
