import { Command, Option } from 'commander';
import { createCommandContext, type CommandContext, type GlobalOptions } from './command-context.js';

/** A command module's entry: positional arguments, then the command's own options. */
export type CommandRun = (cmd: CommandContext, args: string[], options: Record<string, unknown>) => Promise<number | void>;
type Loader = () => Promise<{ default: CommandRun }>;

/**
 * Defers loading a command's module (and what it imports: h3, listhen, yaml, chalk…) until the
 * command runs, so `svc --help` and `svc --version` stay close to bare Node start-up.
 */
function lazy(load: Loader) {
  return async (...raw: unknown[]) => {
    const command = raw[raw.length - 1] as Command;
    const options = raw[raw.length - 2] as Record<string, unknown>;
    const args = raw.slice(0, -2).flatMap((a) => (Array.isArray(a) ? a.map(String) : a === undefined ? [] : [String(a)]));
    const cmd = createCommandContext(command.optsWithGlobals<GlobalOptions>());
    const { default: run } = await load();
    const code = await run(cmd, args, options);
    if (typeof code === 'number') process.exitCode = code;
  };
}

/** The whole command tree. Completion scripts are generated from it, so nothing is listed twice. */
export function buildProgram(version: string): Command {
  const program = new Command('svc')
    .description('Local-first workflow orchestration for AI coding agents')
    .version(version, '-v, --version', 'print the version')
    .option('--url <url>', 'server to talk to (default: $SVC_URL, the running server of $SVC_HOME, or http://127.0.0.1:3090)')
    .option('--json', 'print one JSON document on stdout')
    .option('--no-color', 'no colour (also NO_COLOR=1)')
    .showSuggestionAfterError(true)
    .helpCommand(false)
    // Usage errors must exit 2 (CONTRACT §13); main() maps commander's errors. Subcommands inherit this.
    .exitOverride();

  program
    .command('serve')
    .description('start the server (port: PORT, 3090, or automatic inside a git worktree)')
    .option('-p, --port <port>', 'listen on this port (overrides PORT)')
    .option('--host <host>', 'bind address (overrides SVC_HOST; default 127.0.0.1)')
    .action(lazy(() => import('./commands/serve.js')));

  program.command('status').description('show whether the server runs, and its health').action(lazy(() => import('./commands/status.js')));

  program.command('openapi').description('print the OpenAPI 3.0 document (no server needed)').action(lazy(() => import('./commands/openapi.js')));

  program.command('update-check').description('check for a newer svc').action(lazy(() => import('./commands/update-check.js')));

  const config = program.command('config').description('show or change configuration');
  config.command('show').description('print the configuration').action(lazy(() => import('./commands/config/show.js')));
  config
    .command('set-model')
    .description('set the model an assistant uses')
    .argument('<assistant>', 'assistant name (claude, codex)')
    .argument('<model>', 'model name, e.g. sonnet')
    .action(lazy(() => import('./commands/config/set-model.js')));

  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Command().createArgument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action(lazy(() => import('./commands/completion.js')));

  program
    .command('help')
    .description('show help for a command, or a topic (exit-codes)')
    .argument('[topic...]', 'a command name, or exit-codes')
    .action(lazy(() => import('./commands/help.js')));

  return program;
}

export { Option };
