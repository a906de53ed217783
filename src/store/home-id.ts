import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newId } from '../shared/ids.js';

/**
 * The identity of an `SVC_HOME` (docs/scaling.md): a stable id kept in `<home>/home-id`, made by
 * the first process that asks. Servers sharing a database tell homes apart by it: a run's worktree
 * lives in one home, and only servers of that home can continue the run there. Several servers may
 * share one home on one machine, so the id belongs to the home, not to a server.
 */
export async function homeIdentity(home: string): Promise<string> {
  const file = join(home, 'home-id');
  const existing = await readId(file);
  if (existing) return existing;
  await mkdir(home, { recursive: true });
  // Written aside, then linked into place: `link` fails when the file exists, so two processes
  // starting at once agree on the first one's id, and no reader ever sees a half-written file.
  const draft = `${file}.${process.pid}.${Date.now()}`;
  await writeFile(draft, `${newId('home')}\n`);
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
  const id = await readId(file);
  if (!id) throw new Error(`${file} holds no home id; remove it and start again.`);
  return id;
}

async function readId(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return text?.trim() || undefined;
}
