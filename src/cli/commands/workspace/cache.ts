import { defineCommand } from '../../define-command.js';
import { printJson, printTable } from '../../output.js';
import { formatSize } from '../../../shared/size.js';
import { WORKSPACE_ARG } from './_print.js';

/**
 * `svc workspace cache <workspace> [--clear]`: what `.svc/worktree.yaml`'s `cache:` kept of the
 * setup's output in the server's home (docs/decisions.md, "Setup cache and pool") — each entry's key, size,
 * hits and last use — or, with `--clear`, empties it.
 */
export default defineCommand({
  args: [WORKSPACE_ARG],
  options: {
    clear: ['--clear', 'remove every entry: the next worktree of each key runs its setup again'],
  },
  run: async (cmd, [id], options) => {
    const client = cmd.client();
    if (options.clear) {
      const cleared = await client.workspaces.clearCache(id);
      if (cmd.globals.json) return printJson(cmd.io, cleared);
      return void cmd.io.out(`Removed ${cleared.removed} cache entr${cleared.removed === 1 ? 'y' : 'ies'} (${formatSize(cleared.freedBytes)}).\n`);
    }
    const cache = await client.workspaces.cache(id);
    if (cmd.globals.json) return printJson(cmd.io, cache);
    if (cache.entries.length === 0) {
      return void cmd.io.out("No setup cache entries: a worktree's setup is cached when .svc/worktree.yaml has `cache:` and the setup succeeds.\n");
    }
    await printTable(
      cmd.io,
      ['KEY', 'SIZE', 'HITS', 'LAST USED', 'PATHS', 'COPY'],
      cache.entries.map((entry) => [
        entry.key.slice(0, 12),
        formatSize(entry.sizeBytes),
        String(entry.hits),
        entry.lastUsedAt,
        entry.paths.join(', '),
        entry.cloned ? 'cloned' : 'copied',
      ]),
    );
    cmd.io.out(`${formatSize(cache.totalBytes)} here; the home's caches are trimmed past ${formatSize(cache.maxBytes)} (SVC_CACHE_MAX_BYTES).\n`);
  },
});
