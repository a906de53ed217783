import { Command } from 'commander';
import type { CommandDefinition } from './define-command.js';
import type { GlobalOptions } from './context.js';
import type { IO } from './io.js';
import { NOT_COMPLETED } from './completion-marks.js';

type Loader = () => Promise<{ default: CommandDefinition }>;

/** One line of the manifest: a command's name, its one-line description, and where its file is. */
export interface CommandEntry {
  name: string;
  description: string;
  load?: Loader;
  /** `svc runs` means `svc runs list`. */
  isDefault?: boolean;
  subcommands?: CommandEntry[];
  /**
   * false: the name is not offered by shell completion (its subcommands still are). `conversation`
   * uses it, because `svc con<TAB>` completes to `config` alone, as it always has.
   */
  completeName?: false;
  /** Not listed in help or offered by completion: `__complete`, which the completion scripts call. */
  hidden?: true;
}

const runCommand = () => import('./commands/run/run.js');

/**
 * Every command, cheaply: names, descriptions and lazy loaders. A command's arguments, options
 * and work are in its own file (`commands/<noun>/<verb>.ts`), loaded only when it runs (or when
 * help or completion shows it), so `svc --version` stays close to bare Node start-up.
 */
export const MANIFEST: CommandEntry[] = [
  { name: 'serve', description: 'start the server (port: PORT, 3090, or automatic inside a git worktree)', load: () => import('./commands/serve.js') },
  { name: 'status', description: 'show whether the server runs, and its health', load: () => import('./commands/status.js') },
  { name: 'open', description: "open the dashboard (or a run's page) of the running server in a browser", load: () => import('./commands/open.js') },
  {
    name: 'doctor',
    description:
      'check that agents and bash nodes can run in their sandbox here: bubblewrap, socat, ripgrep, user namespaces, each agent CLI, and each acp assistant answering initialize',
    load: () => import('./commands/doctor.js'),
  },
  { name: 'openapi', description: 'print the OpenAPI 3.0 document (no server needed)', load: () => import('./commands/openapi.js') },
  {
    name: 'migrate-store',
    description: 'copy the file store into an empty PostgreSQL database (--to postgres://…)',
    load: () => import('./commands/migrate-store.js'),
  },
  { name: 'update-check', description: 'check for a newer svc', load: () => import('./commands/update-check.js') },
  {
    name: 'config',
    description: 'show or change configuration',
    subcommands: [
      { name: 'show', description: 'print the configuration', load: () => import('./commands/config/show.js') },
      { name: 'set-model', description: 'set the model an assistant uses', load: () => import('./commands/config/set-model.js') },
      { name: 'set-price', description: "set what an assistant's tokens cost (prices codex)", load: () => import('./commands/config/set-price.js') },
      { name: 'set-memory', description: "set the memory limit of an assistant's conversation replies", load: () => import('./commands/config/set-memory.js') },
      {
        name: 'set-acp',
        description: 'add or change an assistant that speaks ACP (gemini, opencode, any command)',
        load: () => import('./commands/config/set-acp.js'),
      },
      { name: 'set-acp-env', description: "set the values an acp assistant's agent gets", load: () => import('./commands/config/set-acp-env.js') },
      { name: 'remove-acp', description: 'remove an acp assistant', load: () => import('./commands/config/remove-acp.js') },
    ],
  },
  {
    name: 'workflow',
    description: 'list, show, draw, test, validate, save and delete workflow definitions',
    subcommands: [
      { name: 'list', description: 'list the workflows visible here (errors on stderr)', load: () => import('./commands/workflow/list.js') },
      { name: 'show', description: 'print a workflow definition and a drawing of its DAG', load: () => import('./commands/workflow/show.js') },
      { name: 'graph', description: "draw a workflow's DAG", load: () => import('./commands/workflow/graph.js') },
      {
        name: 'test',
        description: 'run a workflow with its agents answered from a fixture and check its expectations (exit 1 naming each broken one)',
        load: () => import('./commands/workflow/test.js'),
      },
      {
        name: 'validate',
        description: 'validate workflow files offline (exit 1 when any is invalid; for CI and pre-commit)',
        load: () => import('./commands/workflow/validate.js'),
      },
      {
        name: 'save',
        description: 'validate a workflow file and save it to <cwd>/.svc/workflows/<name>.yaml',
        load: () => import('./commands/workflow/save.js'),
      },
      { name: 'delete', description: 'delete a project workflow (bundled ones are read-only)', load: () => import('./commands/workflow/delete.js') },
      { name: 'run', description: 'same as `svc run`', load: runCommand },
    ],
  },
  {
    name: 'conversation',
    description: 'conversations with the orchestrator: new, list, show, rename, rm, send',
    completeName: false,
    subcommands: [
      { name: 'new', description: 'start a conversation (optionally on a workspace)', load: () => import('./commands/conversation/new.js') },
      { name: 'list', description: 'list conversations, newest first', load: () => import('./commands/conversation/list.js') },
      { name: 'show', description: 'a conversation and its newest messages', load: () => import('./commands/conversation/show.js') },
      { name: 'rename', description: 'set the title of a conversation', load: () => import('./commands/conversation/rename.js') },
      { name: 'rm', description: 'delete a conversation (soft: it stays readable)', load: () => import('./commands/conversation/rm.js') },
      { name: 'send', description: 'send a message and print the reply as it streams', load: () => import('./commands/conversation/send.js') },
    ],
  },
  {
    name: 'chat',
    description: 'chat with the orchestrator (interactive on a terminal; one message per stdin line when piped)',
    load: () => import('./commands/conversation/chat.js'),
  },
  {
    name: 'webhook',
    description: 'signed webhook triggers: list and register them, see deliveries, send a test delivery',
    subcommands: [
      { name: 'list', description: 'the triggers: slug, workflow, event, whether the secret is set', load: () => import('./commands/webhook/list.js') },
      {
        name: 'register',
        description: "register the triggers of this directory's workflows (the server's own directory and workspaces need not)",
        load: () => import('./commands/webhook/register.js'),
      },
      {
        name: 'deliveries',
        description: 'recent deliveries and why each was accepted, skipped or refused',
        load: () => import('./commands/webhook/deliveries.js'),
      },
      {
        name: 'test',
        description: 'sign and send a delivery like a producer (exit 0 for 2xx; --dry-run prints curl)',
        load: () => import('./commands/webhook/test.js'),
      },
    ],
  },
  {
    name: 'schedule',
    description: 'cron schedules of workflows (triggers.schedule)',
    subcommands: [{ name: 'list', description: 'each schedule and its next firing', load: () => import('./commands/schedule/list.js') }],
  },
  {
    name: 'workspace',
    description: 'repositories and directories runs execute in, each run in a git worktree of its own',
    subcommands: [
      { name: 'add', description: 'clone a repository (URL) or register a local directory', load: () => import('./commands/workspace/add.js') },
      { name: 'list', description: 'list registered workspaces', load: () => import('./commands/workspace/list.js') },
      { name: 'show', description: 'one workspace: source, branch, env var names, the .env scan', load: () => import('./commands/workspace/show.js') },
      { name: 'rm', description: 'remove a workspace, its worktrees and our clone (never your directory)', load: () => import('./commands/workspace/rm.js') },
      { name: 'envs', description: "list a workspace's environments (one worktree per run)", load: () => import('./commands/workspace/envs.js') },
      {
        name: 'cache',
        description: "the setup cache: what .svc/worktree.yaml's cache: kept, or --clear",
        load: () => import('./commands/workspace/cache.js'),
      },
      {
        name: 'conflicts',
        description: 'which unlanded run branches would conflict with the target or each other, and which files both change',
        load: () => import('./commands/workspace/conflicts.js'),
      },
      {
        name: 'env',
        description: "set or unset a workspace's env vars (values are never shown)",
        subcommands: [
          { name: 'set', description: 'set env vars: KEY=VALUE…', load: () => import('./commands/workspace/env-set.js') },
          { name: 'unset', description: 'unset one env var', load: () => import('./commands/workspace/env-unset.js') },
        ],
      },
      {
        name: 'consent',
        description: 'allow or revoke agents despite agent keys in .env files (audit-logged)',
        load: () => import('./commands/workspace/consent.js'),
      },
      {
        name: 'cleanup',
        description: 'remove worktrees of finished runs: ended before --older-than (default 7d), or --merged into the default branch',
        load: () => import('./commands/workspace/cleanup.js'),
      },
    ],
  },
  {
    name: 'mcp',
    description: 'serve svc to coding agents over the Model Context Protocol on stdio (--print-config claude|codex: how to register it)',
    load: () => import('./commands/mcp.js'),
  },
  { name: 'commands', description: 'list commands: markdown prompts a node runs with `command: <name>`', load: () => import('./commands/commands.js') },
  { name: 'run', description: 'start a workflow run and follow it (exit code = outcome)', load: runCommand },
  {
    name: 'runs',
    description: 'list and inspect runs',
    subcommands: [
      { name: 'list', description: 'list runs, newest first', isDefault: true, load: () => import('./commands/run/list.js') },
      { name: 'show', description: 'a run: nodes with status, duration, cost, and a timeline', load: () => import('./commands/run/show.js') },
      {
        name: 'diff',
        description: "what a run changed on its branch, or one node's commits (--node); --stat for the files",
        load: () => import('./commands/run/diff.js'),
      },
      {
        name: 'merge',
        description: "merge a run's branch into its workspace's branch (--into, --squash, --ff-only), or --queue it; your checkout kept safe",
        load: () => import('./commands/run/merge.js'),
      },
      {
        name: 'logs',
        description: "a node's whole log (stdout and stderr), or every node's; --follow streams a running node's until it ends",
        load: () => import('./commands/run/logs.js'),
      },
      { name: 'push', description: "push a run's branch svc/<runId> (--remote, default origin)", load: () => import('./commands/run/push.js') },
      {
        name: 'pr',
        description: "push a run's branch and open a pull request with gh (--title, --body, --draft); --resume one svc follows that needs a person",
        load: () => import('./commands/run/pr.js'),
      },
    ],
  },
  {
    name: 'bench',
    description: 'node times and costs of recent runs: svc bench <workflow>, compare, workflows',
    subcommands: [
      {
        name: 'show',
        description: "percentiles of a workflow's recent runs and of each node (svc bench <workflow>)",
        isDefault: true,
        load: () => import('./commands/bench/show.js'),
      },
      { name: 'compare', description: 'two runs node by node: times, the delta, costs', load: () => import('./commands/bench/compare.js') },
      { name: 'workflows', description: 'list the workflows that have runs', load: () => import('./commands/bench/workflows.js') },
    ],
  },
  {
    name: 'queue',
    description: "a workspace's landing queue, in order: run id and state (queued, verifying, landed, needs_rework, paused)",
    load: () => import('./commands/queue/show.js'),
  },
  { name: 'watch', description: 'follow a run live (or a conversation, or every run)', load: () => import('./commands/run/watch.js') },
  { name: 'cancel', description: 'cancel a pending, running or waiting run', load: () => import('./commands/run/cancel.js') },
  { name: 'abandon', description: 'abandon a pending, running, paused or waiting run', load: () => import('./commands/run/abandon.js') },
  { name: 'delete', description: 'delete a finished run with its events and artifacts', load: () => import('./commands/run/delete.js') },
  { name: 'resume', description: 'continue a failed run, skipping its completed nodes', load: () => import('./commands/run/resume.js') },
  { name: 'approve', description: 'approve a paused run (asks which, on a terminal, when no id is given)', load: () => import('./commands/run/approve.js') },
  { name: 'reject', description: 'reject a paused run; it ends cancelled', load: () => import('./commands/run/reject.js') },
  {
    name: 'signal',
    description: "deliver an event to a waiting run; the payload becomes the waiting node's output",
    load: () => import('./commands/run/signal.js'),
  },
  { name: 'completion', description: 'print a shell completion script', load: () => import('./commands/completion.js') },
  {
    name: '__complete',
    description: 'the values completion offers: workflow names, run ids or workspace names (for the completion scripts)',
    hidden: true,
    load: () => import('./commands/complete.js'),
  },
  { name: 'help', description: 'show help for a command, or a topic (exit-codes)', load: () => import('./commands/help.js') },
];

export interface Program {
  command: Command;
  /** Loads the definitions `argv` needs (the command it names; for a group's help, its members), then runs it. */
  run(argv: readonly string[], from?: 'node' | 'user'): Promise<number>;
  /** The whole tree with every definition attached (help, completion). */
  complete(): Promise<Command>;
}

/** Builds the commander tree from the manifest. `io` replaces the terminal (tests). */
export function buildProgram(version: string, io?: IO): Program {
  const loaders = new Map<Command, Loader>();
  const definitions = new Map<Command, CommandDefinition>();
  let exitCode = 0;

  const root = new Command('svc')
    .description('Local-first workflow orchestration for AI coding agents')
    .version(version, '-v, --version', 'print the version')
    .option('--url <url>', 'server to talk to (default: $SVC_URL, the running server of $SVC_HOME, or http://127.0.0.1:3090)')
    .option('--json', 'print one JSON document on stdout')
    .option('--no-color', 'no colour (also NO_COLOR=1)')
    .showSuggestionAfterError(true)
    .helpCommand(false)
    // Usage errors must exit 2 (docs/contract.md, "Exit codes"); main() maps commander's errors. Subcommands inherit this.
    .exitOverride();
  if (io) root.configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });

  const add = (parent: Command, entry: CommandEntry) => {
    const command = parent
      .command(entry.name, { ...(entry.isDefault ? { isDefault: true } : {}), ...(entry.hidden ? { hidden: true } : {}) })
      .description(entry.description);
    if (entry.completeName === false) NOT_COMPLETED.add(command);
    if (entry.load) {
      loaders.set(command, entry.load);
      command.action(async (...raw: unknown[]) => {
        const self = raw[raw.length - 1] as Command;
        const options = raw[raw.length - 2] as Record<string, unknown>;
        const definition = definitions.get(self)!;
        // Loaded with the command, not before: `svc --version` needs none of it.
        const { createCommandContext } = await import('./context.js');
        const cmd = createCommandContext(self.optsWithGlobals<GlobalOptions>(), io, complete);
        try {
          const code = await definition.run(cmd, raw.slice(0, -2) as never, options as never);
          exitCode = typeof code === 'number' ? code : 0;
        } finally {
          await cmd.close();
        }
      });
    }
    for (const sub of entry.subcommands ?? []) add(command, sub);
  };
  for (const entry of MANIFEST) add(root, entry);

  const attach = async (command: Command) => {
    const load = loaders.get(command);
    if (!load || definitions.has(command)) return;
    const { default: definition } = await load();
    definitions.set(command, definition);
    for (const [syntax, description, choices] of definition.args) {
      const argument = command.createArgument(syntax, description);
      if (choices) argument.choices(choices);
      command.addArgument(argument);
    }
    for (const [key, [flags, description]] of Object.entries(definition.options)) {
      const option = command.createOption(flags, description);
      if (option.attributeName() !== key) throw new Error(`svc ${command.name()}: option ${flags} must be declared as '${option.attributeName()}'`);
      command.addOption(option);
    }
  };
  const attachTree = async (command: Command): Promise<void> => {
    await attach(command);
    await Promise.all(command.commands.map(attachTree));
  };
  async function complete(): Promise<Command> {
    await attachTree(root);
    return root;
  }

  /** The command `args` names (skipping options and the global --url's value), and whether help is asked for. */
  const target = (args: readonly string[]) => {
    let command = root;
    let help = false;
    for (let i = 0; i < args.length; i++) {
      const word = args[i]!;
      if (word === '--help' || word === '-h') help = true;
      if (word === '--url') i++;
      if (word.startsWith('-')) continue;
      const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
      if (!sub) break;
      command = sub;
    }
    return { command, help };
  };

  return {
    command: root,
    complete,
    async run(argv, from = 'node') {
      exitCode = 0;
      const args = from === 'node' ? argv.slice(2) : argv;
      const { command, help } = target(args);
      // A group's help lists its members with their arguments; a group named alone shows that
      // help or runs its default. `--version` needs none of them.
      const version = args.includes('--version') || args.includes('-v');
      await Promise.all([attach(command), ...(help || (!loaders.has(command) && !version) ? command.commands.map(attach) : [])]);
      await root.parseAsync(argv, { from });
      return exitCode;
    },
  };
}
