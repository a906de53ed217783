# fish completion for svc. Generated from the command tree by `svc completion fish`.
# Install: svc completion fish > ~/.config/fish/completions/svc.fish
function __svc_path_is
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ""
    set -l skip 0
    for w in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --url -p --port --host --cwd -c --conversation --workspace --outcome -n --limit --payload --event --key --secret-env --secret --older-than -s --status --workflow -L -m --comment -r --reason
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string trim -- "$path $w")
        if contains -- $candidate "serve" "status" "openapi" "update-check" "config" "config show" "config set-model" "workflow" "workflow list" "workflow show" "workflow graph" "workflow validate" "workflow save" "workflow delete" "workflow run" "webhook" "webhook list" "webhook deliveries" "webhook test" "schedule" "schedule list" "workspace" "workspace add" "workspace list" "workspace show" "workspace rm" "workspace envs" "workspace env" "workspace env set" "workspace env unset" "workspace consent" "workspace cleanup" "commands" "run" "runs" "runs list" "runs show" "watch" "cancel" "abandon" "delete" "resume" "approve" "reject" "completion" "help"
            set path $candidate
        end
    end
    test "$path" = "$argv"
end
complete -c svc -f
complete -c svc -n '__svc_path_is ' -a 'serve' -d 'start the server (port: PORT, 3090, or automatic inside a git worktree)'
complete -c svc -n '__svc_path_is ' -a 'status' -d 'show whether the server runs, and its health'
complete -c svc -n '__svc_path_is ' -a 'openapi' -d 'print the OpenAPI 3.0 document (no server needed)'
complete -c svc -n '__svc_path_is ' -a 'update-check' -d 'check for a newer svc'
complete -c svc -n '__svc_path_is ' -a 'config' -d 'show or change configuration'
complete -c svc -n '__svc_path_is ' -a 'workflow' -d 'list, show, draw, validate, save and delete workflow definitions'
complete -c svc -n '__svc_path_is ' -a 'webhook' -d 'signed webhook triggers: list them, see deliveries, send a test delivery'
complete -c svc -n '__svc_path_is ' -a 'schedule' -d 'cron schedules of workflows (triggers.schedule)'
complete -c svc -n '__svc_path_is ' -a 'workspace' -d 'repositories and directories runs execute in, each run in a git worktree of its own'
complete -c svc -n '__svc_path_is ' -a 'commands' -d 'list commands: markdown prompts a node runs with `command: <name>`'
complete -c svc -n '__svc_path_is ' -a 'run' -d 'start a workflow run and follow it (exit code = outcome)'
complete -c svc -n '__svc_path_is ' -a 'runs' -d 'list and inspect runs'
complete -c svc -n '__svc_path_is ' -a 'watch' -d 'follow a run live (or a conversation, or every run)'
complete -c svc -n '__svc_path_is ' -a 'cancel' -d 'cancel a pending or running run'
complete -c svc -n '__svc_path_is ' -a 'abandon' -d 'abandon a pending, running or paused run'
complete -c svc -n '__svc_path_is ' -a 'delete' -d 'delete a finished run with its events and artifacts'
complete -c svc -n '__svc_path_is ' -a 'resume' -d 'continue a failed run, skipping its completed nodes'
complete -c svc -n '__svc_path_is ' -a 'approve' -d 'approve a paused run (asks which, on a terminal, when no id is given)'
complete -c svc -n '__svc_path_is ' -a 'reject' -d 'reject a paused run; it ends cancelled'
complete -c svc -n '__svc_path_is ' -a 'completion' -d 'print a shell completion script'
complete -c svc -n '__svc_path_is ' -a 'help' -d 'show help for a command, or a topic (exit-codes)'
complete -c svc -n '__svc_path_is ' -s v -l version -d 'print the version'
complete -c svc -n '__svc_path_is ' -l url -r -d 'server to talk to (default: $SVC_URL, the running server of $SVC_HOME, or http://127.0.0.1:3090)'
complete -c svc -n '__svc_path_is ' -l json -d 'print one JSON document on stdout'
complete -c svc -n '__svc_path_is ' -l no-color -d 'no colour (also NO_COLOR=1)'
complete -c svc -n '__svc_path_is serve' -s p -l port -r -d 'listen on this port (overrides PORT)'
complete -c svc -n '__svc_path_is serve' -l host -r -d 'bind address (overrides SVC_HOST; default 127.0.0.1)'
complete -c svc -n '__svc_path_is config' -a 'show' -d 'print the configuration'
complete -c svc -n '__svc_path_is config' -a 'set-model' -d 'set the model an assistant uses'
complete -c svc -n '__svc_path_is workflow' -a 'list' -d 'list the workflows visible here (errors on stderr)'
complete -c svc -n '__svc_path_is workflow' -a 'show' -d 'print a workflow definition and a drawing of its DAG'
complete -c svc -n '__svc_path_is workflow' -a 'graph' -d 'draw a workflow'\''s DAG'
complete -c svc -n '__svc_path_is workflow' -a 'validate' -d 'validate workflow files offline (exit 1 when any is invalid; for CI and pre-commit)'
complete -c svc -n '__svc_path_is workflow' -a 'save' -d 'validate a workflow file and save it to <cwd>/.svc/workflows/<name>.yaml'
complete -c svc -n '__svc_path_is workflow' -a 'delete' -d 'delete a project workflow (bundled ones are read-only)'
complete -c svc -n '__svc_path_is workflow' -a 'run' -d 'same as `svc run`'
complete -c svc -n '__svc_path_is workflow list' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow show' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow graph' -l mermaid -d 'print a Mermaid flowchart instead'
complete -c svc -n '__svc_path_is workflow graph' -l ascii -d 'plain ASCII boxes'
complete -c svc -n '__svc_path_is workflow graph' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow save' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow delete' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is workflow run' -s c -l conversation -r -d 'link the run to a conversation (continues a resumable run of it)'
complete -c svc -n '__svc_path_is workflow run' -l cwd -r -d 'working directory of the run; project workflows are found under it'
complete -c svc -n '__svc_path_is workflow run' -l workspace -r -d 'run in this workspace, in a git worktree of its own (svc/<run id>)'
complete -c svc -n '__svc_path_is workflow run' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is workflow run' -s w -l wait -d 'wait for the end without streaming progress (for scripts)'
complete -c svc -n '__svc_path_is workflow run' -l verbose -d 'stream node output'
complete -c svc -n '__svc_path_is webhook' -a 'list' -d 'the triggers: slug, workflow, event, whether the secret is set'
complete -c svc -n '__svc_path_is webhook' -a 'deliveries' -d 'recent deliveries and why each was accepted, skipped or refused'
complete -c svc -n '__svc_path_is webhook' -a 'test' -d 'sign and send a delivery like a producer (exit 0 for 2xx; --dry-run prints curl)'
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
complete -c svc -n '__svc_path_is workspace' -a 'cleanup' -d 'remove worktrees of runs that ended before --older-than (default 7d)'
complete -c svc -n '__svc_path_is workspace rm' -s y -l yes -d 'do not ask for confirmation'
complete -c svc -n '__svc_path_is workspace env' -a 'set' -d 'set env vars: KEY=VALUE…'
complete -c svc -n '__svc_path_is workspace env' -a 'unset' -d 'unset one env var'
complete -c svc -n '__svc_path_is workspace consent' -l allow -d 'let agents run there despite agent keys in .env files'
complete -c svc -n '__svc_path_is workspace consent' -l revoke -d 'block them again'
complete -c svc -n '__svc_path_is workspace cleanup' -l older-than -r -d 'runs that ended longer ago than this: 30s, 90m, 12h, 7d, 2w (default 7d)'
complete -c svc -n '__svc_path_is workspace cleanup' -l workspace -r -d 'only this workspace'
complete -c svc -n '__svc_path_is commands' -l cwd -r -d 'project directory whose .svc/ is used (default: the current directory)'
complete -c svc -n '__svc_path_is run' -s c -l conversation -r -d 'link the run to a conversation (continues a resumable run of it)'
complete -c svc -n '__svc_path_is run' -l cwd -r -d 'working directory of the run; project workflows are found under it'
complete -c svc -n '__svc_path_is run' -l workspace -r -d 'run in this workspace, in a git worktree of its own (svc/<run id>)'
complete -c svc -n '__svc_path_is run' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is run' -s w -l wait -d 'wait for the end without streaming progress (for scripts)'
complete -c svc -n '__svc_path_is run' -l verbose -d 'stream node output'
complete -c svc -n '__svc_path_is runs' -a 'list' -d 'list runs, newest first'
complete -c svc -n '__svc_path_is runs' -a 'show' -d 'a run: nodes with status, duration, cost, and a timeline'
complete -c svc -n '__svc_path_is runs list' -s s -l status -r -d 'comma-separated: pending, running, paused, completed, failed, cancelled, abandoned'
complete -c svc -n '__svc_path_is runs list' -l workflow -r -d 'only runs of this workflow'
complete -c svc -n '__svc_path_is runs list' -s L -l limit -r -d 'at most this many (1-200, default 50)'
complete -c svc -n '__svc_path_is watch' -s c -l conversation -r -d 'every run event of this conversation'
complete -c svc -n '__svc_path_is watch' -s a -l all -d 'every run event (the dashboard stream)'
complete -c svc -n '__svc_path_is watch' -l exit-status -d 'exit with the run'\''s outcome (0 completed, 1 failed, 3 cancelled, 4 paused)'
complete -c svc -n '__svc_path_is watch' -l verbose -d 'stream node output'
complete -c svc -n '__svc_path_is resume' -l mark-only -d 'only mark it; the next start of its workflow in its conversation continues it'
complete -c svc -n '__svc_path_is resume' -s d -l detach -d 'print the run id and return at once'
complete -c svc -n '__svc_path_is resume' -s w -l wait -d 'wait without streaming progress'
complete -c svc -n '__svc_path_is resume' -l verbose -d 'stream node output'
complete -c svc -n '__svc_path_is approve' -s m -l comment -r -d 'comment; becomes the gate'\''s output'
complete -c svc -n '__svc_path_is reject' -s r -l reason -r -d 'why'
complete -c svc -n '__svc_path_is completion' -a 'bash'
complete -c svc -n '__svc_path_is completion' -a 'zsh'
complete -c svc -n '__svc_path_is completion' -a 'fish'
