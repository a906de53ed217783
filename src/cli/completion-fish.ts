import type { Command } from 'commander';
import { commandPaths, completionTree, shellQuote, valueFlags } from './completion-tree.js';

/**
 * The fish script: `__svc_walk` finds the command path typed so far and how many of its
 * arguments are given; arguments and option values that name a workflow, a run or a workspace
 * are completed by `svc __complete` (`__svc_values`), the rest from the command tree.
 */
export function fishCompletion(program: Command): string {
  const nodes = completionTree(program);
  const paths = commandPaths(nodes);
  const lines: string[] = [];
  for (const n of nodes) {
    const path = shellQuote(n.path).replace(/^'|'$/g, '');
    const condition = `-n '__svc_path_is ${path}'`;
    for (const c of n.commands) lines.push(`complete -c svc ${condition} -a ${shellQuote(c.name)} -d ${shellQuote(c.description)}`);
    for (const choice of n.choices) lines.push(`complete -c svc ${condition} -a ${shellQuote(choice)}`);
    n.argKinds.forEach((kind, index) => {
      if (kind !== '-') lines.push(`complete -c svc -n '__svc_arg_is ${index} ${path}' -a '(__svc_values ${kind})'`);
    });
    for (const o of n.options) {
      const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(' ');
      const values = o.kind ? ` -a '(__svc_values ${o.kind})'` : '';
      lines.push(`complete -c svc ${condition} ${flags}${o.takesValue ? ' -r' : ''}${values} -d ${shellQuote(o.description)}`);
    }
  }
  return `# fish completion for svc. Generated from the command tree by \`svc completion fish\`.
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
            case ${valueFlags(nodes).join(' ')}
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string trim -- "$path $w")
        if contains -- $candidate ${paths.join(' ')}
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
${lines.join('\n')}
`;
}
