import type { Command } from 'commander';
import { fishCompletion } from './completion-fish.js';
import { commandPaths, completionTree, shellQuote, valueFlags, valueOptionsByKind, type CompletionNode } from './completion-tree.js';

export { completionTree } from './completion-tree.js';

/**
 * The shell loop (the same in bash and zsh) that walks the words typed so far and finds the
 * deepest command path they name, skipping options and option values, and counts the arguments
 * given to that command (`npos`), so the one being typed can be told. The variable is `cmdpath`:
 * in zsh `path` is tied to $PATH. A `--url` typed is kept: `svc __complete` asks the same server.
 */
function walkCommandPath(nodes: CompletionNode[], first: number, count: string, words: string): string {
  const paths = commandPaths(nodes);
  return `  for ((i = ${first}; i < ${count}; i++)); do
    w="\${${words}[i]}"
    case "$w" in
      --url) url="\${${words}[i+1]}"; ((i++)); continue ;;
      ${valueFlags(nodes).join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    candidate="\${cmdpath:+$cmdpath }$w"
    case "$candidate" in
      ${paths.join('|')}) cmdpath="$candidate"; npos=0 ;;
      *) npos=$((npos + 1)) ;;
    esac
  done`;
}

/**
 * What a node's case sets besides its words: `args`, the kind of each argument (`svc __complete`
 * offers workflow names, run ids or workspace names; '-' nothing), and, when the word before the
 * cursor is one of its options taking a value, `optkind` (that value's kind, or '-').
 */
function kindsOf(node: CompletionNode, root: CompletionNode): string {
  const options = [...valueOptionsByKind(node, root)].map(([kind, flags]) => `${flags.join('|')}) optkind=${kind} ;;`);
  return `args=(${node.argKinds.join(' ')}); case "$prev" in ${options.join(' ')} esac`;
}

/** The values of `$kind` from the svc typed (and the server typed with --url), starting with what is typed. */
const askSvc = (svc: string, typed: string) => `${svc} \${url:+--url} \${url:+"$url"} __complete "$kind" ${typed} 2>/dev/null`;

export function bashCompletion(program: Command): string {
  const nodes = completionTree(program);
  const root = nodes[0]!;
  const cases = nodes
    .map((n) => {
      const words = [...n.commands.map((c) => c.name), ...n.choices, ...n.options.flatMap((o) => o.flags), '--help'];
      return `    "${n.path}") words=${shellQuote(words.join(' '))}; ${kindsOf(n, root)} ;;`;
    })
    .join('\n');
  return `# bash completion for svc. Generated from the command tree by \`svc completion bash\`.
# Install: svc completion bash > ~/.local/share/bash-completion/completions/svc
# Workflow names, run ids and workspace names come from the store: \`svc __complete <kind>\`.
_svc() {
  local cur prev cmdpath="" i w candidate words url="" npos=0 optkind="" kind
  local -a args values
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
${walkCommandPath(nodes, 1, 'COMP_CWORD', 'COMP_WORDS')}
  case "$cmdpath" in
${cases}
    *) words="" ;;
  esac
  if [[ -n "$optkind" ]]; then kind="$optkind"; else kind="\${args[npos]}"; fi
  if [[ -n "$kind" && "$kind" != - && "$cur" != -* ]]; then
    mapfile -t values < <(${askSvc('"${COMP_WORDS[0]}"', '"$cur"')})
    COMPREPLY=("\${values[@]}")
  elif [[ -n "$optkind" ]]; then
    COMPREPLY=()
  else
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -F _svc svc
`;
}

export function zshCompletion(program: Command): string {
  const nodes = completionTree(program);
  const root = nodes[0]!;
  const escape = (text: string) => text.replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/'/g, `'\\''`);
  const cases = nodes
    .map((n) => {
      const entries = [
        ...n.commands.map((c) => `'${escape(c.name)}:${escape(c.description)}'`),
        ...n.choices.map((c) => `'${escape(c)}'`),
        ...n.options.flatMap((o) => o.flags.map((f) => `'${escape(f)}:${escape(o.description)}'`)),
      ];
      return `    "${n.path}") entries=(${entries.join(' ')}); ${kindsOf(n, root)} ;;`;
    })
    .join('\n');
  return `#compdef svc
# zsh completion for svc. Generated from the command tree by \`svc completion zsh\`.
# Install: svc completion zsh > "\${fpath[1]}/_svc"   (or: source <(svc completion zsh))
# Workflow names, run ids and workspace names come from the store: \`svc __complete <kind>\`.
_svc() {
  local cmdpath="" w candidate i url="" npos=0 optkind="" kind prev
  local -a entries args values
  prev="\${words[CURRENT-1]}"
${walkCommandPath(nodes, 2, 'CURRENT', 'words')}
  case "$cmdpath" in
${cases}
    *) entries=() ;;
  esac
  if [[ -n "$optkind" ]]; then kind="$optkind"; else kind="\${args[npos+1]}"; fi
  if [[ -n "$kind" && "$kind" != - && "$PREFIX" != -* ]]; then
    values=(\${(f)"$(${askSvc('"${words[1]}"', '"$PREFIX"')})"})
    compadd -a values
  elif [[ -z "$optkind" ]]; then
    _describe -t commands 'svc' entries
  fi
}
if [[ "\${funcstack[1]}" == "_svc" ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

export { fishCompletion };

export const SHELLS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;
export type Shell = keyof typeof SHELLS;
