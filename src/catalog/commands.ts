/**
 * Commands: reusable prompts kept as markdown files, bundled (`bundled/commands/*.md`) or in a
 * project (`<cwd>/.svc/commands/*.md`). The name is the file stem; a project command overrides the
 * bundled one of the same name. A node with `command: <name>` runs that file's text as its prompt.
 * A leading `---` front-matter block (as Claude Code command files have) is not part of the
 * prompt; its `description:` line, else the file's first line, describes the command.
 */

import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { BUNDLED_COMMANDS_DIR, PROJECT_COMMANDS_DIR } from './bundled.js';
import type { WorkflowSource } from './discovery.js';
import { COMMAND_NAME_PATTERN } from '../workflows/schema.js';

export interface CommandEntry {
  readonly name: string;
  readonly source: WorkflowSource;
  readonly filename: string;
  readonly description: string;
}

export interface CommandFolders {
  /** Defaults to the commands shipped with svc. */
  readonly bundledDir?: string;
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The text of a command file split into its prompt and a one-line description. */
export function parseCommandFile(text: string): { prompt: string; description: string } {
  const match = FRONT_MATTER.exec(text);
  const prompt = match === null ? text : text.slice(match[0].length);
  const fromFrontMatter = match?.[1]?.match(/^description:[ \t]*(.+)$/m)?.[1];
  const firstLine = prompt.split('\n').find((line) => line.trim() !== '') ?? '';
  const description = (fromFrontMatter ?? firstLine.replace(/^#+\s*/, '')).trim().replace(/^(['"])(.*)\1$/, '$2');
  return { prompt, description };
}

async function describe(entry: Omit<CommandEntry, 'description'>): Promise<CommandEntry | undefined> {
  try {
    return { ...entry, description: parseCommandFile(await readFile(entry.filename, 'utf8')).description };
  } catch {
    return undefined;
  }
}

async function commandsIn(dir: string, source: WorkflowSource): Promise<CommandEntry[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && extname(entry.name) === '.md')
      .map((entry) => entry.name.slice(0, -'.md'.length));
  } catch {
    return [];
  }
  const entries = await Promise.all(
    names.filter((name) => COMMAND_NAME_PATTERN.test(name)).map((name) => describe({ name, source, filename: join(dir, `${name}.md`) })),
  );
  return entries.filter((entry): entry is CommandEntry => entry !== undefined);
}

/** Every command available under `cwd`, sorted by name. */
export async function listCommands(cwd: string, folders: CommandFolders = {}): Promise<CommandEntry[]> {
  const [bundled, project] = await Promise.all([
    commandsIn(folders.bundledDir ?? BUNDLED_COMMANDS_DIR, 'bundled'),
    commandsIn(join(cwd, PROJECT_COMMANDS_DIR), 'project'),
  ]);
  const byName = new Map<string, CommandEntry>();
  for (const entry of [...bundled, ...project]) byName.set(entry.name, entry);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The prompt of command `name` as seen from `cwd` (the run's directory), or undefined when there
 * is none. The name is checked against the pattern first, so it can never reach outside the folders.
 */
export async function readCommand(name: string, cwd: string, folders: CommandFolders = {}): Promise<(CommandEntry & { prompt: string }) | undefined> {
  if (!COMMAND_NAME_PATTERN.test(name)) return undefined;
  const candidates: Omit<CommandEntry, 'description'>[] = [
    { name, source: 'project', filename: join(cwd, PROJECT_COMMANDS_DIR, `${name}.md`) },
    { name, source: 'bundled', filename: join(folders.bundledDir ?? BUNDLED_COMMANDS_DIR, `${name}.md`) },
  ];
  for (const candidate of candidates) {
    try {
      return { ...candidate, ...parseCommandFile(await readFile(candidate.filename, 'utf8')) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return undefined;
}
