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
            case --url -p --port --host --cwd -c --conversation --workspace -w -t --title --assistant -n --limit --older-than -s --status --workflow -L -m --comment -r --reason
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string trim -- "$path $w")
        if contains -- $candidate "serve" "status" "openapi" "update-check" "config" "config show" "config set-model" "workflow" "workflow list" "workflow show" "workflow graph" "workflow validate" "workflow save" "workflow delete" "workflow run" "conversation" "conversation new" "conversation list" "conversation show" "conversation rename" "conversation rm" "conversation send" "chat" "workspace" "workspace add" "workspace list" "workspace show" "workspace rm" "workspace envs" "workspace env" "workspace env set" "workspace env unset" "workspace consent" "workspace cleanup" "commands" "run" "runs" "runs list" "runs show" "watch" "cancel" "abandon" "delete" "resume" "approve" "reject" "completion" "help"
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
complete -c svc -n '__svc_path_is ' -a 'chat' -d 'chat with the orchestrator (interactive on a terminal; one message per stdin line when piped)'
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
complete -c svc -n '__svc_path_is conversation' -a 'new' -d 'start a conversation (optionally on a workspace)'
complete -c svc -n '__svc_path_is conversation' -a 'list' -d 'list conversations, newest first'
complete -c svc -n '__svc_path_is conversation' -a 'show' -d 'a conversation and its newest messages'
complete -c svc -n '__svc_path_is conversation' -a 'rename' -d 'set the title of a conversation'
complete -c svc -n '__svc_path_is conversation' -a 'rm' -d 'delete a conversation (soft: it stays readable)'
complete -c svc -n '__svc_path_is conversation' -a 'send' -d 'send a message and print the reply as it streams'
complete -c svc -n '__svc_path_is conversation new' -s w -l workspace -r -d 'the workspace its agents and runs use'
complete -c svc -n '__svc_path_is conversation new' -s t -l title -r -d 'a title'
complete -c svc -n '__svc_path_is conversation new' -l assistant -r -d 'claude or codex (default: the configuration'\''s)'
complete -c svc -n '__svc_path_is conversation list' -s w -l workspace -r -d 'only the conversations of this workspace'
complete -c svc -n '__svc_path_is conversation list' -s a -l all -d 'include deleted conversations'
complete -c svc -n '__svc_path_is conversation list' -s n -l limit -r -d 'at most this many (default 50, at most 200)'
complete -c svc -n '__svc_path_is conversation show' -s n -l limit -r -d 'how many of the newest messages (default 20, at most 200)'
complete -c svc -n '__svc_path_is conversation send' -l no-wait -d 'send only; do not wait for the reply'
complete -c svc -n '__svc_path_is chat' -s w -l workspace -r -d 'the workspace of a new conversation'
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
complete -c svc -n '__svc_path_is watch' -s c -l conversation -r -d 'this conversation'\''s messages and the events of its runs'
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
