/**
 * Commands: reusable prompts kept as markdown files, bundled (`bundled/commands/*.md`) or in a
 * project (`<cwd>/.svc/commands/*.md`). The name is the file stem; a project command overrides the
 * bundled one of the same name. A node with `command: <name>` runs that file's text as its prompt.
 * A leading `---` front-matter block (as Claude Code command files have) is not part of the
 * prompt; its `description:` line, else the file's first line, describes the command.
 * Command files are read as workflow files are (shared/regular-file.ts): a regular file of at most
 * MAX_COMMAND_FILE_BYTES, else it is refused unread and the listing says why in `errors`.
 */

import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { readRegularFile, RefusedFileError } from '../shared/regular-file.js';
import { BUNDLED_COMMANDS_DIR, PROJECT_COMMANDS_DIR } from './bundled.js';
import type { DiscoveryError, WorkflowSource } from './discovery.js';
import { COMMAND_NAME_PATTERN } from '../workflows/index.js';

/** A command is a prompt, a page of text: larger files are refused unread, as workflow files are. */
export const MAX_COMMAND_FILE_BYTES = 1024 * 1024;

export interface CommandEntry {
  readonly name: string;
  readonly source: WorkflowSource;
  readonly filename: string;
  readonly description: string;
}

/** The commands, and the files that could not be read as one (`{ filename, error }`, as discovery reports). */
export interface CommandList {
  readonly commands: CommandEntry[];
  readonly errors: DiscoveryError[];
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

/** The text of a command file; a refused one is an error naming the file and the reason. */
async function readCommandFile(filename: string): Promise<string> {
  try {
    return await readRegularFile(filename, MAX_COMMAND_FILE_BYTES);
  } catch (error) {
    if (error instanceof RefusedFileError) throw new RefusedFileError(`${filename}: ${error.message}`);
    throw error;
  }
}

async function describe(entry: Omit<CommandEntry, 'description'>, errors: DiscoveryError[]): Promise<CommandEntry | 'broken' | undefined> {
  try {
    return { ...entry, description: parseCommandFile(await readCommandFile(entry.filename)).description };
  } catch (error) {
    // A file gone since the folder was listed is no error; anything else hides only itself.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const reason = error instanceof RefusedFileError ? error.message : `${entry.filename}: cannot read: ${(error as Error).message}`;
    errors.push({ filename: entry.filename, error: reason });
    return 'broken';
  }
}

/** The commands of one folder, and the names of its files that could not be read. */
async function commandsIn(dir: string, source: WorkflowSource, errors: DiscoveryError[]): Promise<{ found: CommandEntry[]; broken: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      // Anything but a folder is tried, so a FIFO or a device is reported rather than passed over.
      .filter((entry) => !entry.isDirectory() && extname(entry.name) === '.md')
      .map((entry) => entry.name.slice(0, -'.md'.length))
      .filter((name) => COMMAND_NAME_PATTERN.test(name));
  } catch {
    return { found: [], broken: [] };
  }
  const entries = await Promise.all(names.map((name) => describe({ name, source, filename: join(dir, `${name}.md`) }, errors)));
  return {
    found: entries.filter((entry): entry is CommandEntry => typeof entry === 'object'),
    broken: names.filter((_name, index) => entries[index] === 'broken'),
  };
}

/**
 * Every command available under `cwd`, sorted by name, and the files refused or unreadable. A
 * broken project file still claims its name: the bundled command of that name is not listed, since
 * a node naming it fails rather than run the bundled prompt (`readCommand`), as discovery does for
 * a broken project workflow.
 */
export async function listCommands(cwd: string, folders: CommandFolders = {}): Promise<CommandList> {
  const errors: DiscoveryError[] = [];
  const [bundled, project] = await Promise.all([
    commandsIn(folders.bundledDir ?? BUNDLED_COMMANDS_DIR, 'bundled', errors),
    commandsIn(join(cwd, PROJECT_COMMANDS_DIR), 'project', errors),
  ]);
  const claimed = new Set(project.broken);
  const byName = new Map<string, CommandEntry>();
  for (const entry of [...bundled.found.filter((entry) => !claimed.has(entry.name)), ...project.found]) byName.set(entry.name, entry);
  // Files are read concurrently; sort so the same files always give the same report.
  errors.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
  return { commands: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), errors };
}

/**
 * The prompt of command `name` as seen from `cwd` (the run's directory), or undefined when there
 * is none. The name is checked against the pattern first, so it can never reach outside the folders.
 * A project file that cannot be read (or is refused: a FIFO, a device, too large) is an error, not
 * a reason to run the bundled command of that name instead: the user meant to override it.
 */
export async function readCommand(name: string, cwd: string, folders: CommandFolders = {}): Promise<(CommandEntry & { prompt: string }) | undefined> {
  if (!COMMAND_NAME_PATTERN.test(name)) return undefined;
  const candidates: Omit<CommandEntry, 'description'>[] = [
    { name, source: 'project', filename: join(cwd, PROJECT_COMMANDS_DIR, `${name}.md`) },
    { name, source: 'bundled', filename: join(folders.bundledDir ?? BUNDLED_COMMANDS_DIR, `${name}.md`) },
  ];
  for (const candidate of candidates) {
    try {
      return { ...candidate, ...parseCommandFile(await readCommandFile(candidate.filename)) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return undefined;
}
