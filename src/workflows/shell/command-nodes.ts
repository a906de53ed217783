/**
 * A command tree-sitter found, read by svc's reading of commands (commands.ts): which of its words
 * name a program, are code, name a file that runs, name a variable or are arithmetic, and which
 * variables it writes — one model of what programs do with their words, for the scanner's rules and
 * the positive policy alike. Each word is mapped back to its node.
 */

import type { Node } from 'web-tree-sitter';
import { readCommand } from './commands.js';
import type { ShellWord, SimpleCommand } from './outline.js';
import type { CommandReading } from './reading.js';
import { argumentsOf, childrenOf, literalOf } from './syntax.js';

export interface NodeReading {
  readonly reading: CommandReading;
  /** The command's words, its name first. */
  readonly words: readonly ShellWord[];
  readonly nodeOf: ReadonlyMap<ShellWord, Node>;
}

/** Reads `command` nodes of `source`'s parse, each once. */
export function commandReader(source: string): (command: Node) => NodeReading {
  const known = new Map<number, NodeReading>();
  return (command) => {
    let reading = known.get(command.id);
    if (!reading) known.set(command.id, (reading = readCommandNode(command, source)));
    return reading;
  };
}

/**
 * `command` read as if its name were the literal words `name` (what a variable the script set once
 * to literal text holds: `cmd=(git status); "${cmd[@]}" …`).
 */
export function readCommandAs(command: Node, source: string, name: readonly string[]): NodeReading {
  return readCommandNode(command, source, name);
}

function readCommandNode(command: Node, source: string, as?: readonly string[]): NodeReading {
  const nodeOf = new Map<ShellWord, Node>();
  const wordOf = (node: Node): ShellWord => {
    const word: ShellWord = { source, start: node.startIndex, end: node.endIndex, literal: literalOf(node), text: '', expansions: [], glob: false };
    nodeOf.set(word, node);
    return word;
  };
  const assignments = childrenOf(command, true)
    .filter((child) => child.type === 'variable_assignment')
    .map((assignment) => {
      const value = assignment.childForFieldName('value');
      const target = assignment.childForFieldName('name');
      const word: ShellWord = {
        ...wordOf(assignment),
        assignment: {
          name: (target?.type === 'subscript' ? target.childForFieldName('name')?.text : target?.text) ?? '',
          append: assignment.text.includes('+='),
          ...(value && value.type !== 'array' ? { value: wordOf(value) } : {}),
        },
      };
      nodeOf.set(word, assignment);
      return word;
    });
  const name = command.childForFieldName('name')?.firstNamedChild;
  const named = as
    ? as.map((literal): ShellWord => ({ source, start: command.startIndex, end: command.startIndex, literal, text: literal, expansions: [], glob: false }))
    : name
      ? [wordOf(name)]
      : [];
  const words = [...named, ...argumentsOf(command).map(wordOf)];
  const simple: SimpleCommand = {
    source,
    start: command.startIndex,
    end: command.endIndex,
    kind: 'simple',
    assignments,
    words,
    redirects: [],
    separator: '',
    piped: command.parent?.type === 'pipeline',
  };
  return { reading: readCommand(simple), words, nodeOf };
}
