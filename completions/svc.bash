# bash completion for svc. Generated from the command tree by `svc completion bash`.
# Install: svc completion bash > ~/.local/share/bash-completion/completions/svc
_svc() {
  local cur cmdpath="" i w candidate words
  cur="${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    case "$w" in
      --url|-p|--port|--host|--database-url|--to|--cached-input|--cwd|--workspace|--fixture|-c|--conversation|--from|--max-cost|--permissions|-w|-t|--title|--assistant|-n|--limit|--outcome|--payload|--event|--key|--secret-env|--secret|--older-than|--print-config|-s|--status|--workflow|--definition-hash|--since|--until|-L|--node|--into|-m|--message|--remote|--body|--base|--comment|-r|--reason) ((i++)); continue ;;
      -*) continue ;;
    esac
    candidate="${cmdpath:+$cmdpath }$w"
    case "$candidate" in
      "serve"|"status"|"open"|"doctor"|"openapi"|"migrate-store"|"update-check"|"config"|"config show"|"config set-model"|"config set-price"|"workflow"|"workflow list"|"workflow show"|"workflow graph"|"workflow test"|"workflow validate"|"workflow save"|"workflow delete"|"workflow run"|"conversation"|"conversation new"|"conversation list"|"conversation show"|"conversation rename"|"conversation rm"|"conversation send"|"chat"|"webhook"|"webhook list"|"webhook register"|"webhook deliveries"|"webhook test"|"schedule"|"schedule list"|"workspace"|"workspace add"|"workspace list"|"workspace show"|"workspace rm"|"workspace envs"|"workspace env"|"workspace env set"|"workspace env unset"|"workspace consent"|"workspace cleanup"|"mcp"|"commands"|"run"|"runs"|"runs list"|"runs show"|"runs diff"|"runs merge"|"runs push"|"runs pr"|"bench"|"bench show"|"bench compare"|"bench workflows"|"watch"|"cancel"|"abandon"|"delete"|"resume"|"approve"|"reject"|"signal"|"completion"|"help") cmdpath="$candidate" ;;
    esac
  done
  case "$cmdpath" in
    "") words='serve status open doctor openapi migrate-store update-check config workflow chat webhook schedule workspace mcp commands run runs bench watch cancel abandon delete resume approve reject signal completion help -v --version --url --json --no-color --help' ;;
    "serve") words='-p --port --host --database-url --help' ;;
    "status") words='--help' ;;
    "open") words='--print --help' ;;
    "doctor") words='--help' ;;
    "openapi") words='--help' ;;
    "migrate-store") words='--to --help' ;;
    "update-check") words='--help' ;;
    "config") words='show set-model set-price --help' ;;
    "config show") words='--help' ;;
    "config set-model") words='--help' ;;
    "config set-price") words='--cached-input --help' ;;
    "workflow") words='list show graph test validate save delete run --help' ;;
    "workflow list") words='--cwd --workspace --help' ;;
    "workflow show") words='--cwd --workspace --help' ;;
    "workflow graph") words='--mermaid --ascii --cwd --help' ;;
    "workflow test") words='--fixture --keep --cwd --help' ;;
    "workflow validate") words='--help' ;;
    "workflow save") words='--cwd --help' ;;
    "workflow delete") words='--cwd --help' ;;
    "workflow run") words='-c --conversation --cwd --workspace --in-place --from --max-cost --permissions -d --detach -w --wait --verbose --dry-run --help' ;;
    "conversation") words='new list show rename rm send --help' ;;
    "conversation new") words='-w --workspace -t --title --assistant --permissions --help' ;;
    "conversation list") words='-w --workspace -a --all -n --limit --help' ;;
    "conversation show") words='-n --limit --help' ;;
    "conversation rename") words='--help' ;;
    "conversation rm") words='--help' ;;
    "conversation send") words='--no-wait --help' ;;
    "chat") words='-w --workspace --help' ;;
    "webhook") words='list register deliveries test --help' ;;
    "webhook list") words='--help' ;;
    "webhook register") words='--cwd --help' ;;
    "webhook deliveries") words='--outcome -n --limit --help' ;;
    "webhook test") words='--payload --event --key --secret-env --secret --dry-run --help' ;;
    "schedule") words='list --help' ;;
    "schedule list") words='--help' ;;
    "workspace") words='add list show rm envs env consent cleanup --help' ;;
    "workspace add") words='--help' ;;
    "workspace list") words='--help' ;;
    "workspace show") words='--help' ;;
    "workspace rm") words='-y --yes --help' ;;
    "workspace envs") words='--help' ;;
    "workspace env") words='set unset --help' ;;
    "workspace env set") words='--help' ;;
    "workspace env unset") words='--help' ;;
    "workspace consent") words='--allow --revoke --help' ;;
    "workspace cleanup") words='--older-than --merged --force --workspace --help' ;;
    "mcp") words='--print-config --help' ;;
    "commands") words='--cwd --help' ;;
    "run") words='-c --conversation --cwd --workspace --in-place --from --max-cost --permissions -d --detach -w --wait --verbose --dry-run --help' ;;
    "runs") words='list show diff merge push pr --help' ;;
    "runs list") words='-s --status --workflow --definition-hash --since --until -L --limit --help' ;;
    "runs show") words='--help' ;;
    "runs diff") words='--node --stat --help' ;;
    "runs merge") words='--into --squash --ff-only -m --message --help' ;;
    "runs push") words='--remote --help' ;;
    "runs pr") words='--title --body --base --draft --help' ;;
    "bench") words='show compare workflows --help' ;;
    "bench show") words='--since -L --limit --by-version --help' ;;
    "bench compare") words='--help' ;;
    "bench workflows") words='--help' ;;
    "watch") words='-c --conversation -a --all --exit-status --verbose --help' ;;
    "cancel") words='--help' ;;
    "abandon") words='--help' ;;
    "delete") words='--help' ;;
    "resume") words='--max-cost --mark-only -d --detach -w --wait --verbose --help' ;;
    "approve") words='-m --comment --help' ;;
    "reject") words='-r --reason --help' ;;
    "signal") words='--payload --help' ;;
    "completion") words='bash zsh fish --help' ;;
    "help") words='--help' ;;
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _svc svc
