import { readdirSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/**
 * A PATH value without the program `name`: `dir` filled with symlinks to every other program on the
 * current PATH (the first of each name), so a test can hide bubblewrap while git, sh and node stay.
 */
export async function pathWithout(name: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const seen = new Set([name]);
  for (const from of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const entries = ((): string[] => {
      try {
        return readdirSync(from);
      } catch {
        return [];
      }
    })();
    for (const entry of entries.filter((e) => !seen.has(e))) {
      seen.add(entry);
      await symlink(join(from, entry), join(dir, entry));
    }
  }
  return dir;
}
