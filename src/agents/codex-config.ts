import { join } from 'node:path';
import { readRegularFile } from '../shared/regular-file.js';

/**
 * The variable holding the key of codex's active model provider, read from its own configuration
 * (`$CODEX_HOME/config.toml`, default `~/.codex/config.toml`): a provider of the user's (Azure, a
 * local gateway) names its key with `env_key`, and the least-privilege environment would otherwise
 * withhold it, so codex failed with "Missing environment variable: `X`." (issue 29). The active
 * provider is the selected profile's `model_provider` (`profile = "p"` → `[profiles.p]`), else the
 * top-level `model_provider`; svc passes no `--profile` or `-c` of its own here (an assistant
 * endpoint is its own provider, `svc`, with `apiKeyEnv`).
 */
export function codexProviderKeyEnv(configToml: string): string | null {
  let root: TomlTable;
  try {
    root = parseToml(configToml);
  } catch {
    // A file codex itself would refuse: nothing is guessed from it.
    return null;
  }
  const profileName = text(root.profile);
  const profile = profileName === undefined ? undefined : table(table(root.profiles)?.[profileName]);
  const provider = text(profile?.model_provider) ?? text(root.model_provider);
  if (provider === undefined) return null;
  const envKey = text(table(table(root.model_providers)?.[provider])?.env_key);
  return envKey !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(envKey) ? envKey : null;
}

/** The same, from the file the server's environment points at; null when there is none or it cannot be read. */
export async function readCodexProviderKeyEnv(server: NodeJS.ProcessEnv): Promise<string | null> {
  const home = server.CODEX_HOME || (server.HOME ? join(server.HOME, '.codex') : undefined);
  if (!home) return null;
  const configText = await readRegularFile(join(home, 'config.toml'), 1024 * 1024).catch(() => undefined);
  return configText === undefined ? null : codexProviderKeyEnv(configText);
}

// ---- a small TOML reader --------------------------------------------------------------------
// Enough of TOML 1.0 to find strings in tables, without a dependency: tables and arrays of tables,
// dotted and quoted keys, basic, literal and multi-line strings (whose lines are never taken for
// headers), arrays and inline tables over several lines, comments. Other values (numbers, dates,
// booleans) are read past and kept as null. Whatever it cannot read is an error, never a guess.

type TomlValue = string | null | TomlValue[] | TomlTable;
interface TomlTable {
  [key: string]: TomlValue;
}

const text = (value: TomlValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const table = (value: TomlValue | undefined): TomlTable | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;

export function parseToml(source: string): TomlTable {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`config.toml: ${what} at offset ${at}`);
  };
  const peek = (n = 0) => source[at + n];
  const skipSpaces = () => {
    while (peek() === ' ' || peek() === '\t') at++;
  };
  const skipComment = () => {
    if (peek() === '#') while (at < source.length && peek() !== '\n') at++;
  };
  /** Spaces, comments and newlines: between entries, and inside arrays and inline tables. */
  const skipBlank = () => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (peek() === '\n' || peek() === '\r') at++;
      else return;
    }
  };
  const endOfLine = () => {
    skipSpaces();
    skipComment();
    if (peek() === '\r') at++;
    if (at < source.length && peek() !== '\n') fail('more after a value');
  };

  const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
  const basicString = (multiline: boolean): string => {
    let out = '';
    for (;;) {
      if (at >= source.length) fail('unterminated string');
      const c = source[at]!;
      if (c === '"') {
        if (!multiline) {
          at++;
          return out;
        }
        // Three quotes close it; up to two more right before them belong to the string.
        let run = 0;
        while (source[at + run] === '"') run++;
        if (run >= 3) {
          if (run > 5) fail('too many quotes');
          out += '"'.repeat(run - 3);
          at += run;
          return out;
        }
      }
      if (c === '\n' && !multiline) fail('newline in a string');
      if (c !== '\\') {
        out += c;
        at++;
        continue;
      }
      const e = source[at + 1] ?? '';
      if (multiline && /[ \t\r\n]/.test(e)) {
        // A line-ending backslash: the newline and the whitespace after it go.
        at++;
        while (/[ \t\r\n]/.test(peek() ?? '')) at++;
      } else if (e === 'u' || e === 'U' || e === 'x') {
        const digits = e === 'u' ? 4 : e === 'U' ? 8 : 2;
        const hex = source.slice(at + 2, at + 2 + digits);
        if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) fail('bad escape');
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        at += 2 + digits;
      } else if (ESCAPES[e] !== undefined) {
        out += ESCAPES[e];
        at += 2;
      } else fail('bad escape');
    }
  };
  const literalString = (multiline: boolean): string => {
    const close = multiline ? "'''" : "'";
    let end = source.indexOf(close, at);
    if (end < 0) fail('unterminated string');
    // Up to two quotes right before the closing three belong to the string.
    for (let extra = 0; multiline && extra < 2 && source[end + 3] === "'"; extra++) end++;
    const value = source.slice(at, end);
    if (!multiline && value.includes('\n')) fail('newline in a string');
    at = end + close.length;
    return value;
  };
  const string = (): string | undefined => {
    for (const [open, read] of [
      ['"""', () => basicString(true)],
      ["'''", () => literalString(true)],
      ['"', () => basicString(false)],
      ["'", () => literalString(false)],
    ] as const) {
      if (!source.startsWith(open, at)) continue;
      at += open.length;
      // A newline right after the opening of a multi-line string is not part of it.
      if (open.length === 3 && source.startsWith('\r\n', at)) at += 2;
      else if (open.length === 3 && peek() === '\n') at++;
      return read();
    }
    return undefined;
  };

  const keyPath = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipSpaces();
      const quoted = peek() === '"' || peek() === "'" ? string() : undefined;
      if (quoted !== undefined) parts.push(quoted);
      else {
        const bare = /^[A-Za-z0-9_-]+/.exec(source.slice(at, at + 256))?.[0];
        if (!bare) fail('a key expected');
        parts.push(bare!);
        at += bare!.length;
      }
      skipSpaces();
      if (peek() !== '.') return parts;
      at++;
    }
  };
  /** The table at `path` under `from`, made when absent; an array of tables stands for its last. */
  const tableAt = (from: TomlTable, path: string[]): TomlTable => {
    let here = from;
    for (const part of path) {
      const next = here[part] ?? (here[part] = {});
      const found = Array.isArray(next) ? table(next.at(-1)) : table(next);
      if (!found) fail(`'${part}' is not a table`);
      here = found!;
    }
    return here;
  };
  const assign = (into: TomlTable, path: string[], value: TomlValue) => {
    const owner = tableAt(into, path.slice(0, -1));
    const last = path.at(-1)!;
    if (last in owner) fail(`'${last}' defined twice`);
    owner[last] = value;
  };

  const value = (): TomlValue => {
    const quoted = string();
    if (quoted !== undefined) return quoted;
    if (peek() === '[') {
      at++;
      const items: TomlValue[] = [];
      for (;;) {
        skipBlank();
        if (peek() === ']') break;
        items.push(value());
        skipBlank();
        if (peek() === ',') at++;
        else if (peek() !== ']') fail("',' or ']' expected");
      }
      at++;
      return items;
    }
    if (peek() === '{') {
      at++;
      const inline: TomlTable = {};
      for (;;) {
        skipBlank();
        if (peek() === '}') break;
        const path = keyPath();
        if (peek() !== '=') fail("'=' expected");
        at++;
        skipSpaces();
        assign(inline, path, value());
        skipBlank();
        if (peek() === ',') at++;
        else if (peek() !== '}') fail("',' or '}' expected");
      }
      at++;
      return inline;
    }
    // A number, a boolean or a date: read past, not kept.
    const scalar = /^[A-Za-z0-9_+\-.:]+(?: [0-9][0-9:.+\-Z]*)?/.exec(source.slice(at, at + 256))?.[0];
    if (!scalar) fail('a value expected');
    at += scalar!.length;
    return null;
  };

  const root: TomlTable = {};
  let current = root;
  for (;;) {
    skipBlank();
    if (at >= source.length) return root;
    if (source.startsWith('[[', at)) {
      at += 2;
      const path = keyPath();
      if (!source.startsWith(']]', at)) fail("']]' expected");
      at += 2;
      const owner = tableAt(root, path.slice(0, -1));
      const last = path.at(-1)!;
      const list = owner[last] ?? (owner[last] = []);
      if (!Array.isArray(list)) fail(`'${last}' is not an array of tables`);
      const entry: TomlTable = {};
      (list as TomlValue[]).push(entry);
      current = entry;
    } else if (peek() === '[') {
      at++;
      const path = keyPath();
      if (peek() !== ']') fail("']' expected");
      at++;
      current = tableAt(root, path);
    } else {
      const path = keyPath();
      if (peek() !== '=') fail("'=' expected");
      at++;
      skipSpaces();
      assign(current, path, value());
    }
    endOfLine();
  }
}
