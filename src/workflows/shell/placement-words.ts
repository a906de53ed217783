/**
 * The words of the positive policy's messages, shared by placement.ts (where a value stands) and
 * command-rules.ts (what a command does with it).
 */

import type { Node } from 'web-tree-sitter';
import { snippet } from './outline.js';

/** The nodes that carry a value: an expansion, a substitution, a single-quoted `$<id>.output`. */
export const VALUES = new Set(['simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'raw_string']);

/** Says that the value at `node` (`what`) may not stand where it is, and why. */
export type Refuse = (node: Node, what: string, why: string) => void;

export const arithmetic = (what = 'bash evaluates it there as an arithmetic expression') =>
  `${what}, running any $(…) in it; check that it is a number first: [[ $v =~ ^[0-9]+$ ]] || exit 1`;

export const unquoted = (node: Node) =>
  `unquoted, bash splits it into words and file names, and a word may become an option or an operator: quote it (${snippet(`"${node.text.replace(/^"|"$/g, '')}"`)})`;

export const unknownPlace = () =>
  'svc cannot tell how bash uses it there, and a value from outside may stand only where bash treats it as data: a quoted argument, the value of an assignment, a case subject, a here-document fed to a program';
