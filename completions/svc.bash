# bash completion for svc. Generated from the command tree by `svc completion bash`.
# Install: svc completion bash > ~/.local/share/bash-completion/completions/svc
# Workflow names, run ids and workspace names come from the store: `svc __complete <kind>`.
_svc() {
  local cur prev cmdpath="" i w candidate words url="" npos=0 optkind="" kind
  local -a args values
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    case "$w" in
      --url) url="${COMP_WORDS[i+1]}"; ((i++)); continue ;;
      --url|-p|--port|--host|--database-url|--to|--cached-input|--preset|--model|--base-url|--api-key-env|--max-concurrent|--cwd|--workspace|--fixture|-c|--conversation|--from|--max-cost|--permissions|-w|-t|--title|--assistant|-n|--limit|--outcome|--payload|--event|--key|--secret-env|--secret|--older-than|--print-config|-s|--status|--workflow|--definition-hash|--since|--until|-L|--node|--into|-m|--message|--remote|--body|--base|--max-fix-cycles|--comment|-r|--reason) ((i++)); continue ;;
      -*) continue ;;
    esac
    candidate="${cmdpath:+$cmdpath }$w"
    case "$candidate" in
      "serve"|"status"|"open"|"doctor"|"openapi"|"migrate-store"|"update-check"|"config"|"config show"|"config set-model"|"config set-price"|"config set-memory"|"config set-acp"|"config set-acp-env"|"config remove-acp"|"workflow"|"workflow list"|"workflow show"|"workflow graph"|"workflow test"|"workflow validate"|"workflow save"|"workflow delete"|"workflow run"|"conversation"|"conversation new"|"conversation list"|"conversation show"|"conversation rename"|"conversation rm"|"conversation send"|"chat"|"webhook"|"webhook list"|"webhook register"|"webhook deliveries"|"webhook test"|"schedule"|"schedule list"|"workspace"|"workspace add"|"workspace list"|"workspace show"|"workspace rm"|"workspace envs"|"workspace cache"|"workspace conflicts"|"workspace env"|"workspace env set"|"workspace env unset"|"workspace consent"|"workspace cleanup"|"mcp"|"commands"|"run"|"runs"|"runs list"|"runs show"|"runs diff"|"runs merge"|"runs logs"|"runs push"|"runs pr"|"bench"|"bench show"|"bench compare"|"bench workflows"|"queue"|"watch"|"cancel"|"abandon"|"delete"|"resume"|"approve"|"reject"|"signal"|"completion"|"help") cmdpath="$candidate"; npos=0 ;;
      *) npos=$((npos + 1)) ;;
    esac
  done
  case "$cmdpath" in
    "") words='serve status open doctor openapi migrate-store update-check config workflow chat webhook schedule workspace mcp commands run runs bench queue watch cancel abandon delete resume approve reject signal completion help -v --version --url --json --no-color --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "serve") words='-p --port --host --database-url --help'; args=(); case "$prev" in -p|--port|--host|--database-url|--url) optkind=- ;; esac ;;
    "status") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "open") words='--print --help'; args=(runs); case "$prev" in --url) optkind=- ;; esac ;;
    "doctor") words='--probe-acp --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "openapi") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "migrate-store") words='--to --help'; args=(); case "$prev" in --to|--url) optkind=- ;; esac ;;
    "update-check") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "config") words='show set-model set-price set-memory set-acp set-acp-env remove-acp --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "config show") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "config set-model") words='--help'; args=(- -); case "$prev" in --url) optkind=- ;; esac ;;
    "config set-price") words='--cached-input --help'; args=(- - -); case "$prev" in --cached-input|--url) optkind=- ;; esac ;;
    "config set-memory") words='--help'; args=(- -); case "$prev" in --url) optkind=- ;; esac ;;
    "config set-acp") words='--preset --model --base-url --api-key-env --max-concurrent --default --help'; args=(- -); case "$prev" in --preset|--model|--base-url|--api-key-env|--max-concurrent|--url) optkind=- ;; esac ;;
    "config set-acp-env") words='--from-env --help'; args=(- -); case "$prev" in --url) optkind=- ;; esac ;;
    "config remove-acp") words='--help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    "workflow") words='list show graph test validate save delete run --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "workflow list") words='--cwd --workspace --help'; args=(); case "$prev" in --cwd|--workspace|--url) optkind=- ;; esac ;;
    "workflow show") words='--cwd --workspace --help'; args=(workflows); case "$prev" in --cwd|--workspace|--url) optkind=- ;; esac ;;
    "workflow graph") words='--mermaid --ascii --cwd --help'; args=(workflows); case "$prev" in --cwd|--url) optkind=- ;; esac ;;
    "workflow test") words='--fixture --keep --cwd --help'; args=(workflows); case "$prev" in --fixture|--cwd|--url) optkind=- ;; esac ;;
    "workflow validate") words='--help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    "workflow save") words='--cwd --help'; args=(-); case "$prev" in --cwd|--url) optkind=- ;; esac ;;
    "workflow delete") words='--cwd --help'; args=(workflows); case "$prev" in --cwd|--url) optkind=- ;; esac ;;
    "workflow run") words='-c --conversation --cwd --workspace --in-place --from --max-cost --permissions -d --detach -w --wait --verbose --dry-run --help'; args=(workflows -); case "$prev" in -c|--conversation|--cwd|--max-cost|--permissions|--url) optkind=- ;; --workspace) optkind=workspaces ;; --from) optkind=runs ;; esac ;;
    "conversation") words='new list show rename rm send --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "conversation new") words='-w --workspace -t --title --assistant --permissions --help'; args=(); case "$prev" in -w|--workspace) optkind=workspaces ;; -t|--title|--assistant|--permissions|--url) optkind=- ;; esac ;;
    "conversation list") words='-w --workspace -a --all -n --limit --help'; args=(); case "$prev" in -w|--workspace) optkind=workspaces ;; -n|--limit|--url) optkind=- ;; esac ;;
    "conversation show") words='-n --limit --help'; args=(-); case "$prev" in -n|--limit|--url) optkind=- ;; esac ;;
    "conversation rename") words='--help'; args=(- -); case "$prev" in --url) optkind=- ;; esac ;;
    "conversation rm") words='--help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    "conversation send") words='--no-wait --help'; args=(- -); case "$prev" in --url) optkind=- ;; esac ;;
    "chat") words='-w --workspace --help'; args=(-); case "$prev" in -w|--workspace) optkind=workspaces ;; --url) optkind=- ;; esac ;;
    "webhook") words='list register deliveries test --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "webhook list") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "webhook register") words='--cwd --help'; args=(); case "$prev" in --cwd|--url) optkind=- ;; esac ;;
    "webhook deliveries") words='--outcome -n --limit --help'; args=(-); case "$prev" in --outcome|-n|--limit|--url) optkind=- ;; esac ;;
    "webhook test") words='--payload --event --key --secret-env --secret --dry-run --help'; args=(-); case "$prev" in --payload|--event|--key|--secret-env|--secret|--url) optkind=- ;; esac ;;
    "schedule") words='list --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "schedule list") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace") words='add list show rm envs cache conflicts env consent cleanup --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace add") words='--help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace list") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace show") words='--help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace rm") words='-y --yes --help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace envs") words='--help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace cache") words='--clear --help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace conflicts") words='--help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace env") words='set unset --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace env set") words='--help'; args=(workspaces -); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace env unset") words='--help'; args=(workspaces -); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace consent") words='--allow --revoke --help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "workspace cleanup") words='--older-than --merged --force --workspace --help'; args=(); case "$prev" in --older-than|--url) optkind=- ;; --workspace) optkind=workspaces ;; esac ;;
    "mcp") words='--print-config --help'; args=(); case "$prev" in --print-config|--url) optkind=- ;; esac ;;
    "commands") words='--cwd --help'; args=(); case "$prev" in --cwd|--url) optkind=- ;; esac ;;
    "run") words='-c --conversation --cwd --workspace --in-place --from --max-cost --permissions -d --detach -w --wait --verbose --dry-run --help'; args=(workflows -); case "$prev" in -c|--conversation|--cwd|--max-cost|--permissions|--url) optkind=- ;; --workspace) optkind=workspaces ;; --from) optkind=runs ;; esac ;;
    "runs") words='list show diff merge logs push pr --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "runs list") words='-s --status --workflow --definition-hash --since --until -L --limit --help'; args=(); case "$prev" in -s|--status|--workflow|--definition-hash|--since|--until|-L|--limit|--url) optkind=- ;; esac ;;
    "runs show") words='--help'; args=(runs); case "$prev" in --url) optkind=- ;; esac ;;
    "runs diff") words='--node --stat --help'; args=(runs); case "$prev" in --node|--url) optkind=- ;; esac ;;
    "runs merge") words='--into --squash --ff-only -m --message --queue --help'; args=(runs); case "$prev" in --into|-m|--message|--url) optkind=- ;; esac ;;
    "runs logs") words='-f --follow --help'; args=(runs -); case "$prev" in --url) optkind=- ;; esac ;;
    "runs push") words='--remote --help'; args=(runs); case "$prev" in --remote|--url) optkind=- ;; esac ;;
    "runs pr") words='--title --body --base --draft --resume --max-fix-cycles --help'; args=(runs); case "$prev" in --title|--body|--base|--max-fix-cycles|--url) optkind=- ;; esac ;;
    "bench") words='show compare workflows --help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "bench show") words='--since -L --limit --by-version --help'; args=(workflows); case "$prev" in --since|-L|--limit|--url) optkind=- ;; esac ;;
    "bench compare") words='--help'; args=(runs runs); case "$prev" in --url) optkind=- ;; esac ;;
    "bench workflows") words='--help'; args=(); case "$prev" in --url) optkind=- ;; esac ;;
    "queue") words='--help'; args=(workspaces); case "$prev" in --url) optkind=- ;; esac ;;
    "watch") words='-c --conversation -a --all --exit-status --verbose --help'; args=(runs); case "$prev" in -c|--conversation|--url) optkind=- ;; esac ;;
    "cancel") words='--help'; args=(runs); case "$prev" in --url) optkind=- ;; esac ;;
    "abandon") words='--help'; args=(runs); case "$prev" in --url) optkind=- ;; esac ;;
    "delete") words='--help'; args=(runs); case "$prev" in --url) optkind=- ;; esac ;;
    "resume") words='--max-cost --mark-only -d --detach -w --wait --verbose --help'; args=(runs); case "$prev" in --max-cost|--url) optkind=- ;; esac ;;
    "approve") words='-m --comment --help'; args=(runs); case "$prev" in -m|--comment|--url) optkind=- ;; esac ;;
    "reject") words='-r --reason --help'; args=(runs); case "$prev" in -r|--reason|--url) optkind=- ;; esac ;;
    "signal") words='--payload --help'; args=(runs -); case "$prev" in --payload|--url) optkind=- ;; esac ;;
    "completion") words='bash zsh fish --help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    "help") words='--help'; args=(-); case "$prev" in --url) optkind=- ;; esac ;;
    *) words="" ;;
  esac
  if [[ -n "$optkind" ]]; then kind="$optkind"; else kind="${args[npos]}"; fi
  if [[ -n "$kind" && "$kind" != - && "$cur" != -* ]]; then
    mapfile -t values < <("${COMP_WORDS[0]}" ${url:+--url} ${url:+"$url"} __complete "$kind" "$cur" 2>/dev/null)
    COMPREPLY=("${values[@]}")
  elif [[ -n "$optkind" ]]; then
    COMPREPLY=()
  else
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -F _svc svc
