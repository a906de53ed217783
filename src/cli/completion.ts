import type { Command } from 'commander';
import { NOT_COMPLETED } from './completion-marks.js';

/** One node of the command tree, flattened for the script generators. */
interface CompletionNode {
  /** Space-separated path of command names below `svc` ("" for the root). */
  path: string;
  commands: Array<{ name: string; description: string }>;
  options: Array<{ flags: string[]; description: string; takesValue: boolean }>;
  /** Values of a first argument that has fixed choices. */
  choices: string[];
}

function collect(command: Command, path: string, nodes: CompletionNode[]): void {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  nodes.push({
    path,
    commands: visible.filter((c) => !NOT_COMPLETED.has(c)).map((c) => ({ name: c.name(), description: c.description() })),
    options: [...command.options, ...(path === '' ? [] : [])]
      .filter((o) => !o.hidden)
      .map((o) => ({ flags: [o.short, o.long].filter((f): f is string => Boolean(f)), description: o.description, takesValue: o.required || o.optional })),
    choices: command.registeredArguments[0]?.argChoices ?? [],
  });
  for (const sub of visible) collect(sub, path ? `${path} ${sub.name()}` : sub.name(), nodes);
}

export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  collect(program, '', nodes);
  return nodes;
}

const commandPaths = (nodes: CompletionNode[]) => nodes.filter((n) => n.path).map((n) => `"${n.path}"`);
const valueFlags = (nodes: CompletionNode[]) => [...new Set(nodes.flatMap((n) => n.options.filter((o) => o.takesValue).flatMap((o) => o.flags)))];
/**
 * The shell loop (the same in bash and zsh) that walks the words typed so far and finds the
 * deepest command path they name, skipping options and option values. The variable is `cmdpath`:
 * in zsh `path` is tied to $PATH.
 */
function walkCommandPath(nodes: CompletionNode[], first: number, count: string, words: string): string {
  const paths = commandPaths(nodes);
  return `  for ((i = ${first}; i < ${count}; i++)); do
    w="\${${words}[i]}"
    case "$w" in
      ${valueFlags(nodes).join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    candidate="\${cmdpath:+$cmdpath }$w"
    case "$candidate" in
      ${paths.join('|')}) cmdpath="$candidate" ;;
    esac
  done`;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function bashCompletion(program: Command): string {
  const nodes = completionTree(program);
  const cases = nodes
    .map((n) => {
      const words = [...n.commands.map((c) => c.name), ...n.choices, ...n.options.flatMap((o) => o.flags), '--help'];
      return `    "${n.path}") words=${shellQuote(words.join(' '))} ;;`;
    })
    .join('\n');
  return `# bash completion for svc. Generated from the command tree by \`svc completion bash\`.
# Install: svc completion bash > ~/.local/share/bash-completion/completions/svc
_svc() {
  local cur cmdpath="" i w candidate words
  cur="\${COMP_WORDS[COMP_CWORD]}"
${walkCommandPath(nodes, 1, 'COMP_CWORD', 'COMP_WORDS')}
  case "$cmdpath" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _svc svc
`;
}

export function zshCompletion(program: Command): string {
  const nodes = completionTree(program);
  const escape = (text: string) => text.replace(/\\/g, '\\\\').replace(/:/g, '\\:').replace(/'/g, `'\\''`);
  const cases = nodes
    .map((n) => {
      const entries = [
        ...n.commands.map((c) => `'${escape(c.name)}:${escape(c.description)}'`),
        ...n.choices.map((c) => `'${escape(c)}'`),
        ...n.options.flatMap((o) => o.flags.map((f) => `'${escape(f)}:${escape(o.description)}'`)),
      ];
      return `    "${n.path}") entries=(${entries.join(' ')}) ;;`;
    })
    .join('\n');
  return `#compdef svc
# zsh completion for svc. Generated from the command tree by \`svc completion zsh\`.
# Install: svc completion zsh > "\${fpath[1]}/_svc"   (or: source <(svc completion zsh))
_svc() {
  local cmdpath="" w candidate i
  local -a entries
${walkCommandPath(nodes, 2, 'CURRENT', 'words')}
  case "$cmdpath" in
${cases}
    *) entries=() ;;
  esac
  _describe -t commands 'svc' entries
}
if [[ "\${funcstack[1]}" == "_svc" ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

export function fishCompletion(program: Command): string {
  const nodes = completionTree(program);
  const paths = commandPaths(nodes);
  const lines: string[] = [];
  for (const n of nodes) {
    const condition = `-n '__svc_path_is ${shellQuote(n.path).replace(/^'|'$/g, '')}'`;
    for (const c of n.commands) lines.push(`complete -c svc ${condition} -a ${shellQuote(c.name)} -d ${shellQuote(c.description)}`);
    for (const choice of n.choices) lines.push(`complete -c svc ${condition} -a ${shellQuote(choice)}`);
    for (const o of n.options) {
      const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(' ');
      lines.push(`complete -c svc ${condition} ${flags}${o.takesValue ? ' -r' : ''} -d ${shellQuote(o.description)}`);
    }
  }
  return `# fish completion for svc. Generated from the command tree by \`svc completion fish\`.
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
            case ${valueFlags(nodes).join(' ')}
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string trim -- "$path $w")
        if contains -- $candidate ${paths.join(' ')}
            set path $candidate
        end
    end
    test "$path" = "$argv"
end
complete -c svc -f
${lines.join('\n')}
`;
}

export const SHELLS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;
export type Shell = keyof typeof SHELLS;
