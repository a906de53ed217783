import type { Command } from 'commander';
import { kindOfPlaceholder, placeholderOf, type CompletedKind } from './completion-kinds.js';
import { NOT_COMPLETED } from './completion-marks.js';

/** One node of the command tree, flattened for the script generators (completion.ts, completion-fish.ts). */
export interface CompletionNode {
  /** Space-separated path of command names below `svc` ("" for the root). */
  path: string;
  commands: Array<{ name: string; description: string }>;
  options: CompletionOption[];
  /** Values of a first argument that has fixed choices. */
  choices: string[];
  /** Per positional argument, the kind of value `svc __complete` offers for it ('-' for none). */
  argKinds: Array<CompletedKind | '-'>;
}

export interface CompletionOption {
  flags: string[];
  description: string;
  takesValue: boolean;
  /** The kind of value `svc __complete` offers for the option's value, if any. */
  kind: CompletedKind | undefined;
}

const kindOf = (placeholder: string | undefined) => (placeholder === undefined ? undefined : kindOfPlaceholder(placeholder));

function collect(command: Command, path: string, nodes: CompletionNode[]): void {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  nodes.push({
    path,
    commands: visible.filter((c) => !NOT_COMPLETED.has(c)).map((c) => ({ name: c.name(), description: c.description() })),
    options: command.options
      .filter((o) => !o.hidden)
      .map((o) => ({
        flags: [o.short, o.long].filter((f): f is string => Boolean(f)),
        description: o.description,
        takesValue: o.required || o.optional,
        kind: kindOf(placeholderOf(o.flags)),
      })),
    choices: command.registeredArguments[0]?.argChoices ?? [],
    argKinds: command.registeredArguments.map((a) => kindOf(a.name()) ?? '-'),
  });
  for (const sub of visible) collect(sub, path ? `${path} ${sub.name()}` : sub.name(), nodes);
}

export function completionTree(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];
  collect(program, '', nodes);
  return nodes;
}

export const commandPaths = (nodes: CompletionNode[]) => nodes.filter((n) => n.path).map((n) => `"${n.path}"`);
export const valueFlags = (nodes: CompletionNode[]) => [...new Set(nodes.flatMap((n) => n.options.filter((o) => o.takesValue).flatMap((o) => o.flags)))];
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The options whose value the word before the cursor asks for, at `node`: its own and the root's
 * (`--url`), grouped by the kind offered ('-': a value with nothing to offer, such as `--cwd`).
 */
export function valueOptionsByKind(node: CompletionNode, root: CompletionNode): Map<CompletedKind | '-', string[]> {
  const groups = new Map<CompletedKind | '-', string[]>();
  const seen = new Set<string>();
  for (const option of [...node.options, ...(node === root ? [] : root.options)]) {
    if (!option.takesValue) continue;
    const flags = option.flags.filter((flag) => !seen.has(flag));
    flags.forEach((flag) => seen.add(flag));
    if (flags.length) groups.set(option.kind ?? '-', [...(groups.get(option.kind ?? '-') ?? []), ...flags]);
  }
  return groups;
}
