import { databaseUrl, SettingsError } from '../../shared/settings.js';
import { defineCommand } from '../define-command.js';
import { CliError, UsageError } from '../exit-codes.js';
import { printJson } from '../output.js';

/**
 * `svc migrate-store --to postgres://…`: copies the file store of $SVC_HOME (runs, events,
 * conversations, messages, workspaces, the assistant configuration, webhook triggers, dedupe
 * records and deliveries, schedule state) into an empty PostgreSQL database, verified by counts
 * (docs/scaling.md). Run it with the server stopped: it takes the store's writer lock.
 */
export default defineCommand({
  options: {
    to: ['--to <url>', 'the empty database to copy into (postgres://…)'],
  },
  run: async (cmd, _args, options) => {
    let url: string | undefined;
    try {
      url = databaseUrl(typeof options.to === 'string' ? options.to : undefined, '--to');
    } catch (error) {
      if (error instanceof SettingsError) throw new UsageError(error.message);
      throw error;
    }
    if (!url) throw new UsageError('--to postgres://… is required: the empty database to copy the file store into.');
    const { migrateStore, StoreLockedError, DatabaseUnavailableError } = await import('../../runtime.js');
    let counts;
    try {
      counts = await migrateStore(cmd.settings, url);
    } catch (error) {
      if (error instanceof StoreLockedError || error instanceof DatabaseUnavailableError) throw new CliError(error.message);
      if (error instanceof Error && 'code' in error && error.code === 'database_not_empty') throw new CliError(error.message);
      throw error;
    }
    if (cmd.globals.json) return printJson(cmd.io, { copied: counts });
    cmd.io.out(
      [
        `copied ${counts.runs} runs (${counts.runEvents} events), ${counts.conversations} conversations (${counts.messages} messages, ${counts.conversationEvents} events),`,
        `${counts.workspaces} workspaces (${counts.workspaceEnvironments} environments, ${counts.workspaceEnvValues} env values),`,
        `${counts.webhookTriggers} webhook triggers (${counts.webhookDedupe} dedupe records, ${counts.webhookDeliveries} deliveries), ${counts.scheduleStates} schedule states, ${counts.queueEntries} queue entries,`,
        `${counts.config ? 'the' : 'no'} assistant configuration; counts verified`,
        '',
      ].join('\n'),
    );
  },
});
