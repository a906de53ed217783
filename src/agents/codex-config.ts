import { join } from 'node:path';
import { parse, type TomlTable, type TomlValue } from 'smol-toml';
import { readRegularFile } from '../shared/regular-file.js';

/** TOML 1.0, read by smol-toml: a file codex itself would refuse throws. */
export const parseToml = (source: string): TomlTable => parse(source);

const text = (value: TomlValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);
const table = (value: TomlValue | undefined): TomlTable | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) ? (value as TomlTable) : undefined;

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
