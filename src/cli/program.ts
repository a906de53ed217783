import { Command } from 'commander';
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

  program
    .command('status')
    .description('show whether the server runs, and its health')
    .action(lazy(() => import('./commands/status.js')));

  program
    .command('openapi')
    .description('print the OpenAPI 3.0 document (no server needed)')
    .action(lazy(() => import('./commands/openapi.js')));

  program
    .command('update-check')
    .description('check for a newer svc')
    .action(lazy(() => import('./commands/update-check.js')));

  const config = program.command('config').description('show or change configuration');
  config
    .command('show')
    .description('print the configuration')
    .action(lazy(() => import('./commands/config/show.js')));
  config
    .command('set-model')
    .description('set the model an assistant uses')
    .argument('<assistant>', 'assistant name (claude, codex)')
    .argument('<model>', 'model name, e.g. sonnet')
    .action(lazy(() => import('./commands/config/set-model.js')));

  // Workflow definitions (issue 3). Read commands go through the server, or the store when none runs;
  // `validate` never needs either. `--cwd` defaults to the directory the CLI runs in.
  const cwdFlag = ['--cwd <dir>', 'project directory whose .svc/ is used (default: the current directory)'] as const;
  const workflow = program.command('workflow').description('list, show, draw, validate, save and delete workflow definitions');
  workflow
    .command('list')
    .description('list the workflows visible here (errors on stderr)')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/workflow/list.js')));
  workflow
    .command('show')
    .description('print a workflow definition and a drawing of its DAG')
    .argument('<name>', 'workflow name')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/workflow/show.js')));
  workflow
    .command('graph')
    .description("draw a workflow's DAG")
    .argument('<name>', 'workflow name')
    .option('--mermaid', 'print a Mermaid flowchart instead')
    .option('--ascii', 'plain ASCII boxes')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/workflow/graph.js')));
  workflow
    .command('validate')
    .description('validate workflow files offline (exit 1 when any is invalid; for CI and pre-commit)')
    .argument('<file...>', 'workflow files, or directories of them')
    .action(lazy(() => import('./commands/workflow/validate.js')));
  workflow
    .command('save')
    .description('validate a workflow file and save it to <cwd>/.svc/workflows/<name>.yaml')
    .argument('<file>', 'workflow YAML file')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/workflow/save.js')));
  workflow
    .command('delete')
    .description('delete a project workflow (bundled ones are read-only)')
    .argument('<name>', 'workflow name')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/workflow/delete.js')));
  program
    .command('commands')
    .description('list commands: markdown prompts a node runs with `command: <name>`')
    .option(...cwdFlag)
    .action(lazy(() => import('./commands/commands.js')));

  // Runs (issue 4). `run` follows the run to its end; with no server it executes in the foreground.
  const addRunOptions = (command: Command) =>
    command
      .argument('<workflow>', 'workflow name')
      .argument('[message...]', 'the task ($ARGUMENTS)')
      .option('-c, --conversation <id>', 'link the run to a conversation (continues a resumable run of it)')
      .option('--cwd <dir>', 'working directory of the run; project workflows are found under it')
      .option('-d, --detach', 'print the run id and return at once')
      .option('-w, --wait', 'wait for the end without streaming progress (for scripts)')
      .option('--verbose', 'stream node output')
      .action(lazy(() => import('./commands/run.js')));
  addRunOptions(program.command('run').description('start a workflow run and follow it (exit code = outcome)'));
  addRunOptions(workflow.command('run').description('same as `svc run`'));

  const runs = program.command('runs').description('list and inspect runs');
  const listRuns = (command: Command) =>
    command
      .option('-s, --status <states>', 'comma-separated: pending, running, paused, completed, failed, cancelled, abandoned')
      .option('--workflow <name>', 'only runs of this workflow')
      .option('-L, --limit <n>', 'at most this many (1-200, default 50)')
      .action(lazy(() => import('./commands/runs/list.js')));

  listRuns(runs.command('list', { isDefault: true }).description('list runs, newest first'));
  runs
    .command('show')
    .description('a run: nodes with status, duration, cost, and a timeline')
    .argument('<run>', 'run id or unambiguous prefix')
    .action(lazy(() => import('./commands/runs/show.js')));

  program
    .command('watch')
    .description('follow a run live (or a conversation, or every run)')
    .argument('[run]', 'run id or prefix')
    .option('-c, --conversation <id>', 'every run event of this conversation')
    .option('-a, --all', 'every run event (the dashboard stream)')
    .option('--exit-status', "exit with the run's outcome (0 completed, 1 failed, 3 cancelled, 4 paused)")
    .option('--verbose', 'stream node output')
    .action(lazy(() => import('./commands/watch.js')));

  const runArgument = (command: Command) => command.argument('<run>', 'run id or unambiguous prefix');
  runArgument(program.command('cancel').description('cancel a pending or running run')).action(
    lazy(() => import('./commands/runs/operations.js').then((m) => ({ default: m.cancel }))),
  );
  runArgument(program.command('abandon').description('abandon a pending, running or paused run')).action(
    lazy(() => import('./commands/runs/operations.js').then((m) => ({ default: m.abandon }))),
  );
  runArgument(program.command('delete').description('delete a finished run with its events and artifacts')).action(
    lazy(() => import('./commands/runs/operations.js').then((m) => ({ default: m.remove }))),
  );
  runArgument(program.command('resume').description('continue a failed run, skipping its completed nodes'))
    .option('--mark-only', 'only mark it; the next start of its workflow in its conversation continues it')
    .option('-d, --detach', 'print the run id and return at once')
    .option('-w, --wait', 'wait without streaming progress')
    .option('--verbose', 'stream node output')
    .action(lazy(() => import('./commands/runs/resume.js')));
  program
    .command('approve')
    .description('approve a paused run (asks which, on a terminal, when no id is given)')
    .argument('[run]', 'run id or prefix')
    .option('-m, --comment <text>', "comment; becomes the gate's output")
    .action(lazy(() => import('./commands/runs/decide.js').then((m) => ({ default: m.approve }))));
  program
    .command('reject')
    .description('reject a paused run; it ends cancelled')
    .argument('[run]', 'run id or prefix')
    .option('-r, --reason <text>', 'why')
    .action(lazy(() => import('./commands/runs/decide.js').then((m) => ({ default: m.reject }))));

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
