/**
 * The env-leak gate's scan (docs/contract.md, "Workspaces"): `.env` and `.env.*` files at a
 * workspace's root (at most 1 MiB each) are read for the keys that would hand an agent someone's API
 * credentials. Only key NAMES come out of here: a value is looked at just long enough to see that
 * it is not empty, never kept, never logged.
 */

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../shared/regular-file.js';

/** Agent credentials that must not reach an agent from a repository's files without consent. */
export const AGENT_KEY_NAMES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
] as const;

export type EnvScanStatus = 'clean' | 'keys_found' | 'unreadable';

export interface EnvScan {
  /** `keys_found` when any key matched; else `unreadable` when a file could not be read; else `clean`. */
  status: EnvScanStatus;
  /** The env files found at the root, by name. */
  files: string[];
  /** Matched key names, sorted, each once. */
  keys: string[];
  /** Files that exist but could not be read (never counted as matches). */
  unreadable: string[];
}

const ENV_FILE = /^\.env(\..+)?$/;
// `KEY=value`, `export KEY=value`, `KEY: value` is not dotenv; quotes around the value are allowed.
const ASSIGNMENT = /^\s*(?:export\s+)?["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*=\s*(.*)$/;
const WANTED = new Set<string>(AGENT_KEY_NAMES);
/** A file this large is not a dotenv file; it is reported unreadable rather than read whole. */
const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** A value counts when something is left after quotes and an inline comment are taken away. */
function hasValue(rest: string): boolean {
  const value = rest.trim();
  if (value.startsWith('"') || value.startsWith("'"))
    return (
      value
        .slice(1)
        .replace(/["'].*$/, '')
        .trim() !== ''
    );
  return value.replace(/\s#.*$/, '').trim() !== '';
}

/** The wanted keys with a value in one file; a file refused (a FIFO, a device, over the cap) or unreadable throws. */
async function keysIn(path: string): Promise<string[]> {
  const found = new Set<string>();
  for (const line of (await readRegularFile(path, MAX_ENV_FILE_BYTES)).split(/\r?\n/)) {
    const match = ASSIGNMENT.exec(line);
    if (match && WANTED.has(match[1]!) && hasValue(match[2]!)) found.add(match[1]!);
  }
  return [...found];
}

/** Scans the env files at `root` (not below it: tools read the root's). */
export async function scanEnvFiles(root: string): Promise<EnvScan> {
  let names: string[];
  try {
    const entries = await readdir(root, { withFileTypes: true });
    names = entries.filter((entry) => ENV_FILE.test(entry.name) && !entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return { status: 'unreadable', files: [], keys: [], unreadable: ['.'] };
  }
  names.sort();
  const keys = new Set<string>();
  const unreadable: string[] = [];
  for (const name of names) {
    try {
      for (const key of await keysIn(join(root, name))) keys.add(key);
    } catch {
      unreadable.push(name);
    }
  }
  const status: EnvScanStatus = keys.size > 0 ? 'keys_found' : unreadable.length > 0 ? 'unreadable' : 'clean';
  return { status, files: names, keys: [...keys].sort(), unreadable };
}

/**
 * The agent keys in the given files below `root` (the worktree setup's `copy:` list): files
 * missing, refused or unreadable are left out — the copy itself refuses what it cannot copy.
 */
export async function scanListedFiles(root: string, paths: readonly string[]): Promise<{ files: string[]; keys: string[] }> {
  const files: string[] = [];
  const keys = new Set<string>();
  for (const path of paths) {
    const found = await keysIn(join(root, path)).catch(() => []);
    if (found.length === 0) continue;
    files.push(path);
    for (const key of found) keys.add(key);
  }
  return { files, keys: [...keys].sort() };
}
