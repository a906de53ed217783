# fish completion for svc. Generated from the command tree by `svc completion fish`.
# Install: svc completion fish > ~/.config/fish/completions/svc.fish
# Prints two lines: n:<arguments given to the command> and p:<the command path typed so far>.
function __svc_walk
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ""
    set -l npos 0
    set -l skip 0
    for w in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --url -p --port --host --database-url --to --cached-input --cwd --fixture -c --conversation --workspace --from --max-cost --permissions -w -t --title --assistant -n --limit --outcome --payload --event --key --secret-env --secret --older-than --print-config -s --status --workflow --definition-hash --since --until -L --node --into -m --message --remote --body --base --comment -r --reason
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string trim -- "$path $w")
        if contains -- $candidate "serve" "status" "open" "doctor" "openapi" "migrate-store" "update-check" "config" "config show" "config set-model" "config set-price" "workflow" "workflow list" "workflow show" "workflow graph" "workflow test" "workflow validate" "workflow save" "workflow delete" "workflow run" "conversation" "conversation new" "conversation list" "conversation show" "conversation rename" "conversation rm" "conversation send" "chat" "webhook" "webhook list" "webhook register" "webhook deliveries" "webhook test" "schedule" "schedule list" "workspace" "workspace add" "workspace list" "workspace show" "workspace rm" "workspace envs" "workspace env" "workspace env set" "workspace env unset" "workspace consent" "workspace cleanup" "mcp" "commands" "run" "runs" "runs list" "runs show" "runs diff" "runs merge" "runs push" "runs pr" "bench" "bench show" "bench compare" "bench workflows" "watch" "cancel" "abandon" "delete" "resume" "approve" "reject" "signal" "completion" "help"
            set path $candidate
            set npos 0
        else
            set npos (math $npos + 1)
        end
    end
    echo "n:$npos"
    echo "p:$path"
end
function __svc_path_is
    set -l state (__svc_walk)
    test "$state[2]" = "p:$argv"
end
# __svc_arg_is N PATH…: the command is PATH and the word being completed is its argument N (from 0).
function __svc_arg_is
    set -l state (__svc_walk)
    test "$state[1]" = "n:$argv[1]"; and test "$state[2]" = "p:$argv[2..-1]"
end
# Workflow names, run ids or workspace names from the store, asked of the same svc (and --url) typed.
function __svc_values
    set -l tokens (commandline -opc)
    set -l url
    if set -l i (contains -i -- --url $tokens)
        set url --url $tokens[(math $i + 1)]
    end
    $tokens[1] $url __complete $argv[1] (commandline -ct) 2>/dev/null
end
complete -c svc -f
complete -c svc -n '__svc_path_is ' -a 'serve' -d 'start the server (port: PORT, 3090, or automatic inside a git worktree)'
complete -c svc -n '__svc_path_is ' -a 'status' -d 'show whether the server runs, and its health'
complete -c svc -n '__svc_path_is ' -a 'open' -d 'open the dashboard (or a run'\''s page) of the running server in a browser'
complete -c svc -n '__svc_path_is ' -a 'doctor' -d 'check that agents and bash nodes can run in their sandbox here: bubblewrap, socat, ripgrep, user namespaces, each agent CLI (no server needed)'
complete -c svc -n '__svc_path_is ' -a 'openapi' -d 'print the OpenAPI 3.0 document (no server needed)'
complete -c svc -n '__svc_path_is ' -a 'migrate-store' -d 'copy the file store into an empty PostgreSQL database (--to postgres://…)'
complete -c svc -n '__svc_path_is ' -a 'update-check' -d 'check for a newer svc'
complete -c svc -n '__svc_path_is ' -a 'config' -d 'show or change configuration'
complete -c svc -n '__svc_path_is ' -a 'workflow' -d 'list, show, draw, test, validate, save and delete workflow definitions'
complete -c svc -n '__svc_path_is ' -a 'chat' -d 'chat with the orchestrator (interactive on a terminal; one message per stdin line when piped)'
complete -c svc -n '__svc_path_is ' -a 'webhook' -d 'signed webhook triggers: list and register them, see deliveries, send a test delivery'
complete -c svc -n '__svc_path_is ' -a 'schedule' -d 'cron schedules of workflows (triggers.schedule)'
complete -c svc -n '__svc_path_is ' -a 'workspace' -d 'repositories and directories runs execute in, each run in a git worktree of its own'
complete -c svc -n '__svc_path_is ' -a 'mcp' -d 'serve svc to coding agents over the Model Context Protocol on stdio (--print-config claude|codex: how to register it)'
complete -c svc -n '__svc_path_is ' -a 'commands' -d 'list commands: markdown prompts a node runs with `command: <name>`'
complete -c svc -n '__svc_path_is ' -a 'run' -d 'start a workflow run and follow it (exit code = outcome)'
complete -c svc -n '__svc_path_is ' -a 'runs' -d 'list and inspect runs'
complete -c svc -n '__svc_path_is ' -a 'bench' -d 'node times and costs of recent runs: svc bench <workflow>, compare, workflows'
complete -c svc -n '__svc_path_is ' -a 'watch' -d 'follow a run live (or a conversation, or every run)'
complete -c svc -n '__svc_path_is ' -a 'cancel' -d 'cancel a pending, running or waiting run'
complete -c svc -n '__svc_path_is ' -a 'abandon' -d 'abandon a pending, running, paused or waiting run'
complete -c svc -n '__svc_path_is ' -a 'delete' -d 'delete a finished run with its events and artifacts'
complete -c svc -n '__svc_path_is ' -a 'resume' -d 'continue a failed run, skipping its completed nodes'
complete -c svc -n '__svc_path_is ' -a 'approve' -d 'approve a paused run (asks which, on a terminal, when no id is given)'
complete -c svc -n '__svc_path_is ' -a 'reject' -d 'reject a paused run; it ends cancelled'
complete -c svc -n '__svc_path_is ' -a 'signal' -d 'deliver an event to a waiting run; the payload becomes the waiting node'\''s output'
complete -c svc -n '__svc_path_is ' -a 'completion' -d 'print a shell completion script'
complete -c svc -n '__svc_path_is ' -a 'help' -d 'show help for a command, or a topic (exit-codes)'
complete -c svc -n '__svc_path_is ' -s v -l version -d 'print the version'
complete -c svc -n '__svc_path_is ' -l url -r -d 'server to talk to (default: $SVC_URL, the running server of $SVC_HOME, or http://127.0.0.1:3090)'
complete -c svc -n '__svc_path_is ' -l json -d 'print one JSON document on stdout'
complete -c svc -n '__svc_path_is ' -l no-color -d 'no colour (also NO_COLOR=1)'
complete -c svc -n '__svc_path_is serve' -s p -l port -r -d 'listen on this port (overrides PORT)'
complete -c svc -n '__svc_path_is serve' -l host -r -d 'bind address (overrides SVC_HOST; default 127.0.0.1)'
complete -c svc -n '__svc_path_is serve' -l database-url -r -d 'share a PostgreSQL database with other servers (overrides SVC_DATABASE_URL; docs/scaling.md)'
complete -c svc -n '__svc_arg_is 0 open' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is open' -l print -d 'print the URL and open nothing'
complete -c svc -n '__svc_path_is migrate-store' -l to -r -d 'the empty database to copy into (postgres://…)'
complete -c svc -n '__svc_path_is config' -a 'show' -d 'print the configuration'
complete -c svc -n '__svc_path_is config' -a 'set-model' -d 'set the model an assistant uses'
complete -c svc -n '__svc_path_is config' -a 'set-price' -d 'set what an assistant'\''s tokens cost (prices codex)'
complete -c svc -n '__svc_path_is config set-price' -l cached-input -r -d 'USD per million cached input tokens (default: the input price)'
complete -c svc -n '__svc_path_is workflow' -a 'list' -d 'list the workflows visible here (errors on stderr)'
complete -c svc -n '__svc_path_is workflow' -a 'show' -d 'print a workflow definition and a drawing of its DAG'
complete -c svc -n '__svc_path_is workflow' -a 'graph' -d 'draw a workflow'\''s DAG'
complete -c svc -n '__svc_path_is workflow' -a 'test' -d 'run a workflow with its agents answered from a fixture and check its expectations (exit 1 naming each broken one)'
complete -c svc -n '__svc_path_is workflow' -a 'validate' -d 'validate workflow files offline (exit 1 when any is invalid; for CI and pre-commit)'
complete -c svc -n '__svc_path_is workflow' -a 'save' -d 'validate a workflow file and save it to <cwd>/.svc/workflows/<name>.yaml'
complete -c svc -n '__svc_path_is workflow' -a 'delete' -d 'delete a project workflow (bundled ones are read-only)'
complete -c svc -n '__svc_path_is workflow' -a 'run' -d 'same as `svc run`'
complete -c svc -n '__svc_path_is workflow list' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 workflow show' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is workflow show' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 workflow graph' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is workflow graph' -l mermaid -d 'print a Mermaid flowchart instead'
complete -c svc -n '__svc_path_is workflow graph' -l ascii -d 'plain ASCII boxes'
complete -c svc -n '__svc_path_is workflow graph' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 workflow test' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is workflow test' -l fixture -r -d 'the fixture (YAML: message, nodes, approvals, expect); default .svc/tests/<name>.yaml when it exists'
complete -c svc -n '__svc_path_is workflow test' -l keep -d 'keep the test run afterwards (it is deleted otherwise)'
complete -c svc -n '__svc_path_is workflow test' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow save' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 workflow delete' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is workflow delete' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 workflow run' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is workflow run' -s c -l conversation -r -d 'link the run to a conversation (continues a resumable run of it)'
complete -c svc -n '__svc_path_is workflow run' -l cwd -r -d 'working directory of the run; project workflows are found under it'
complete -c svc -n '__svc_path_is workflow run' -l workspace -r -a '(__svc_values workspaces)' -d 'run in this workspace (name, id or id prefix), in a git worktree of its own (svc/<run id>)'
complete -c svc -n '__svc_path_is workflow run' -l from -r -a '(__svc_values runs)' -d 'a follow-on run: branch from that run'\''s head, with its changes (id or prefix)'
complete -c svc -n '__svc_path_is workflow run' -l max-cost -r -d 'the run'\''s spend cap in USD (with the workflow'\''s max_cost_usd, the smaller wins)'
complete -c svc -n '__svc_path_is workflow run' -l permissions -r -d 'what the run'\''s agents may do at most: read, edit or full (lowers the workflow'\''s, never raises it)'
complete -c svc -n '__svc_path_is workflow run' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is workflow run' -s w -l wait -d 'wait for the end without streaming progress (for scripts)'
complete -c svc -n '__svc_path_is workflow run' -l verbose -d 'stream node output and agents'\'' tool calls'
complete -c svc -n '__svc_path_is workflow run' -l dry-run -d 'print the execution plan (steps, parallel nodes, conditions, each agent and its permissions) and run nothing'
complete -c svc -n '__svc_path_is conversation' -a 'new' -d 'start a conversation (optionally on a workspace)'
complete -c svc -n '__svc_path_is conversation' -a 'list' -d 'list conversations, newest first'
complete -c svc -n '__svc_path_is conversation' -a 'show' -d 'a conversation and its newest messages'
complete -c svc -n '__svc_path_is conversation' -a 'rename' -d 'set the title of a conversation'
complete -c svc -n '__svc_path_is conversation' -a 'rm' -d 'delete a conversation (soft: it stays readable)'
complete -c svc -n '__svc_path_is conversation' -a 'send' -d 'send a message and print the reply as it streams'
complete -c svc -n '__svc_path_is conversation new' -s w -l workspace -r -a '(__svc_values workspaces)' -d 'the workspace its agents and runs use (name, id or id prefix)'
complete -c svc -n '__svc_path_is conversation new' -s t -l title -r -d 'a title'
complete -c svc -n '__svc_path_is conversation new' -l assistant -r -d 'claude or codex (default: the configuration'\''s)'
complete -c svc -n '__svc_path_is conversation new' -l permissions -r -d 'what its agent may do: read, edit or full (default: the configuration'\''s, read)'
complete -c svc -n '__svc_path_is conversation list' -s w -l workspace -r -a '(__svc_values workspaces)' -d 'only the conversations of this workspace (name, id or id prefix)'
complete -c svc -n '__svc_path_is conversation list' -s a -l all -d 'include deleted conversations'
complete -c svc -n '__svc_path_is conversation list' -s n -l limit -r -d 'at most this many (default 50, at most 200)'
complete -c svc -n '__svc_path_is conversation show' -s n -l limit -r -d 'how many of the newest messages (default 20, at most 200)'
complete -c svc -n '__svc_path_is conversation send' -l no-wait -d 'send only; do not wait for the reply'
complete -c svc -n '__svc_path_is chat' -s w -l workspace -r -a '(__svc_values workspaces)' -d 'the workspace of a new conversation (name, id or id prefix)'
complete -c svc -n '__svc_path_is webhook' -a 'list' -d 'the triggers: slug, workflow, event, whether the secret is set'
complete -c svc -n '__svc_path_is webhook' -a 'register' -d 'register the triggers of this directory'\''s workflows (the server'\''s own directory and workspaces need not)'
complete -c svc -n '__svc_path_is webhook' -a 'deliveries' -d 'recent deliveries and why each was accepted, skipped or refused'
complete -c svc -n '__svc_path_is webhook' -a 'test' -d 'sign and send a delivery like a producer (exit 0 for 2xx; --dry-run prints curl)'
complete -c svc -n '__svc_path_is webhook register' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is webhook deliveries' -l outcome -r -d 'only this outcome (accepted, duplicate, invalid_signature, …)'
complete -c svc -n '__svc_path_is webhook deliveries' -s n -l limit -r -d 'how many (default 20, at most 1000)'
complete -c svc -n '__svc_path_is webhook test' -l payload -r -d 'send this file'\''s bytes as they are ('\''-'\'': stdin) instead of a built payload'
complete -c svc -n '__svc_path_is webhook test' -l event -r -d 'the built payload'\''s event (default: the trigger'\''s)'
complete -c svc -n '__svc_path_is webhook test' -l key -r -d 'the built payload'\''s idempotency key (default: a fresh UUID)'
complete -c svc -n '__svc_path_is webhook test' -l secret-env -r -d 'sign with the secret in this environment variable (default: the trigger'\''s secret_env)'
complete -c svc -n '__svc_path_is webhook test' -l secret -r -d 'sign with this secret'
complete -c svc -n '__svc_path_is webhook test' -l dry-run -d 'print the equivalent curl command (with its signature) instead of sending'
complete -c svc -n '__svc_path_is schedule' -a 'list' -d 'each schedule and its next firing'
complete -c svc -n '__svc_path_is workspace' -a 'add' -d 'clone a repository (URL) or register a local directory'
complete -c svc -n '__svc_path_is workspace' -a 'list' -d 'list registered workspaces'
complete -c svc -n '__svc_path_is workspace' -a 'show' -d 'one workspace: source, branch, env var names, the .env scan'
complete -c svc -n '__svc_path_is workspace' -a 'rm' -d 'remove a workspace, its worktrees and our clone (never your directory)'
complete -c svc -n '__svc_path_is workspace' -a 'envs' -d 'list a workspace'\''s environments (one worktree per run)'
complete -c svc -n '__svc_path_is workspace' -a 'env' -d 'set or unset a workspace'\''s env vars (values are never shown)'
complete -c svc -n '__svc_path_is workspace' -a 'consent' -d 'allow or revoke agents despite agent keys in .env files (audit-logged)'
complete -c svc -n '__svc_path_is workspace' -a 'cleanup' -d 'remove worktrees of finished runs: ended before --older-than (default 7d), or --merged into the default branch'
complete -c svc -n '__svc_arg_is 0 workspace show' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_arg_is 0 workspace rm' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_path_is workspace rm' -s y -l yes -d 'do not ask for confirmation'
complete -c svc -n '__svc_arg_is 0 workspace envs' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_path_is workspace env' -a 'set' -d 'set env vars: KEY=VALUE…'
complete -c svc -n '__svc_path_is workspace env' -a 'unset' -d 'unset one env var'
complete -c svc -n '__svc_arg_is 0 workspace env set' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_arg_is 0 workspace env unset' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_arg_is 0 workspace consent' -a '(__svc_values workspaces)'
complete -c svc -n '__svc_path_is workspace consent' -l allow -d 'let agents run there despite agent keys in .env files'
complete -c svc -n '__svc_path_is workspace consent' -l revoke -d 'block them again'
complete -c svc -n '__svc_path_is workspace cleanup' -l older-than -r -d 'runs that ended longer ago than this: 30s, 90m, 12h, 7d, 2w (default 7d; with --merged, any age)'
complete -c svc -n '__svc_path_is workspace cleanup' -l merged -d 'only runs whose branch is merged into the workspace'\''s default branch (or whose changes already are in it)'
complete -c svc -n '__svc_path_is workspace cleanup' -l force -d 'with --merged: remove branches with unmerged commits too'
complete -c svc -n '__svc_path_is workspace cleanup' -l workspace -r -a '(__svc_values workspaces)' -d 'only this workspace (name, id or id prefix)'
complete -c svc -n '__svc_path_is mcp' -l print-config -r -d 'print the snippet that registers svc with an agent (claude, codex)'
complete -c svc -n '__svc_path_is commands' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_arg_is 0 run' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is run' -s c -l conversation -r -d 'link the run to a conversation (continues a resumable run of it)'
complete -c svc -n '__svc_path_is run' -l cwd -r -d 'working directory of the run; project workflows are found under it'
complete -c svc -n '__svc_path_is run' -l workspace -r -a '(__svc_values workspaces)' -d 'run in this workspace (name, id or id prefix), in a git worktree of its own (svc/<run id>)'
complete -c svc -n '__svc_path_is run' -l from -r -a '(__svc_values runs)' -d 'a follow-on run: branch from that run'\''s head, with its changes (id or prefix)'
complete -c svc -n '__svc_path_is run' -l max-cost -r -d 'the run'\''s spend cap in USD (with the workflow'\''s max_cost_usd, the smaller wins)'
complete -c svc -n '__svc_path_is run' -l permissions -r -d 'what the run'\''s agents may do at most: read, edit or full (lowers the workflow'\''s, never raises it)'
complete -c svc -n '__svc_path_is run' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is run' -s w -l wait -d 'wait for the end without streaming progress (for scripts)'
complete -c svc -n '__svc_path_is run' -l verbose -d 'stream node output and agents'\'' tool calls'
complete -c svc -n '__svc_path_is run' -l dry-run -d 'print the execution plan (steps, parallel nodes, conditions, each agent and its permissions) and run nothing'
complete -c svc -n '__svc_path_is runs' -a 'list' -d 'list runs, newest first'
complete -c svc -n '__svc_path_is runs' -a 'show' -d 'a run: nodes with status, duration, cost, and a timeline'
complete -c svc -n '__svc_path_is runs' -a 'diff' -d 'what a run changed on its branch, or one node'\''s commits (--node); --stat for the files'
complete -c svc -n '__svc_path_is runs' -a 'merge' -d 'merge a run'\''s branch into its workspace'\''s branch (--into, --squash, --ff-only); your checkout kept safe'
complete -c svc -n '__svc_path_is runs' -a 'push' -d 'push a run'\''s branch svc/<runId> (--remote, default origin)'
complete -c svc -n '__svc_path_is runs' -a 'pr' -d 'push a run'\''s branch and open a pull request with gh (--title, --body, --draft)'
complete -c svc -n '__svc_path_is runs list' -s s -l status -r -d 'comma-separated: pending, running, paused, waiting, completed, failed, cancelled, abandoned'
complete -c svc -n '__svc_path_is runs list' -l workflow -r -d 'only runs of this workflow'
complete -c svc -n '__svc_path_is runs list' -l definition-hash -r -d 'only runs of this version of their workflow (the hash `svc runs show` prints)'
complete -c svc -n '__svc_path_is runs list' -l since -r -d 'runs created since: 24h, 7d, 2w or an ISO date'
complete -c svc -n '__svc_path_is runs list' -l until -r -d 'runs created until: 24h, 7d, 2w (ago) or an ISO date'
complete -c svc -n '__svc_path_is runs list' -s L -l limit -r -d 'at most this many (1-200, default 50)'
complete -c svc -n '__svc_arg_is 0 runs show' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 0 runs diff' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is runs diff' -l node -r -d 'only this node'\''s commits'
complete -c svc -n '__svc_path_is runs diff' -l stat -d 'the files changed with lines added and removed, instead of the patch'
complete -c svc -n '__svc_arg_is 0 runs merge' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is runs merge' -l into -r -d 'the branch to merge into (default: the workspace'\''s default branch)'
complete -c svc -n '__svc_path_is runs merge' -l squash -d 'one commit on top of the branch instead of a merge commit'
complete -c svc -n '__svc_path_is runs merge' -l ff-only -d 'only fast-forward the branch to the run'\''s head'
complete -c svc -n '__svc_path_is runs merge' -s m -l message -r -d 'the commit message'
complete -c svc -n '__svc_arg_is 0 runs push' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is runs push' -l remote -r -d 'a remote name or URL (default origin)'
complete -c svc -n '__svc_arg_is 0 runs pr' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is runs pr' -l title -r -d 'default: the run'\''s message'\''s first line'
complete -c svc -n '__svc_path_is runs pr' -l body -r -d 'the description ('\''-'\'': stdin); default: the last node'\''s output and a summary of the run'
complete -c svc -n '__svc_path_is runs pr' -l base -r -d 'the branch to merge into (default: the workspace'\''s default branch)'
complete -c svc -n '__svc_path_is runs pr' -l draft -d 'open it as a draft'
complete -c svc -n '__svc_path_is bench' -a 'show' -d 'percentiles of a workflow'\''s recent runs and of each node (svc bench <workflow>)'
complete -c svc -n '__svc_path_is bench' -a 'compare' -d 'two runs node by node: times, the delta, costs'
complete -c svc -n '__svc_path_is bench' -a 'workflows' -d 'list the workflows that have runs'
complete -c svc -n '__svc_arg_is 0 bench show' -a '(__svc_values workflows)'
complete -c svc -n '__svc_path_is bench show' -l since -r -d 'only runs that ended since: 24h, 7d, 2w or an ISO date (default: all history)'
complete -c svc -n '__svc_path_is bench show' -s L -l limit -r -d 'the newest n completed or failed runs (1-200, default 20)'
complete -c svc -n '__svc_path_is bench show' -l by-version -d 'the same runs per version of the workflow, each version'\''s p50 and cost against the one before'
complete -c svc -n '__svc_arg_is 0 bench compare' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 1 bench compare' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 0 watch' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is watch' -s c -l conversation -r -d 'this conversation'\''s messages and the events of its runs'
complete -c svc -n '__svc_path_is watch' -s a -l all -d 'every run event (the dashboard stream)'
complete -c svc -n '__svc_path_is watch' -l exit-status -d 'exit with the run'\''s outcome (0 completed, 1 failed, 3 cancelled, 4 paused, 6 completed with tool calls denied)'
complete -c svc -n '__svc_path_is watch' -l verbose -d 'stream node output and agents'\'' tool calls'
complete -c svc -n '__svc_arg_is 0 cancel' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 0 abandon' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 0 delete' -a '(__svc_values runs)'
complete -c svc -n '__svc_arg_is 0 resume' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is resume' -l max-cost -r -d 'replace the run'\''s spend cap (USD; may exceed the workflow'\''s); a run its cap stopped needs one above what it spent'
complete -c svc -n '__svc_path_is resume' -l mark-only -d 'only mark it; the next start of its workflow in its conversation continues it'
complete -c svc -n '__svc_path_is resume' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is resume' -s w -l wait -d 'wait without streaming progress'
complete -c svc -n '__svc_path_is resume' -l verbose -d 'stream node output and agents'\'' tool calls'
complete -c svc -n '__svc_arg_is 0 approve' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is approve' -s m -l comment -r -d 'comment; becomes the gate'\''s output'
complete -c svc -n '__svc_arg_is 0 reject' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is reject' -s r -l reason -r -d 'why'
complete -c svc -n '__svc_arg_is 0 signal' -a '(__svc_values runs)'
complete -c svc -n '__svc_path_is signal' -l payload -r -d 'the waiting node'\''s output: this file'\''s text ('\''-'\'': stdin); none: empty'
complete -c svc -n '__svc_path_is completion' -a 'bash'
complete -c svc -n '__svc_path_is completion' -a 'zsh'
complete -c svc -n '__svc_path_is completion' -a 'fish'
