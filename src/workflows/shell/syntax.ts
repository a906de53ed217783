/**
 * Small readings of tree-sitter's bash tree (bash-parser.ts) that the policy's two halves share
 * (taint.ts, placement.ts): a word's literal text, a command's name and arguments, where a node
 * sits.
 */

import type { Node } from 'web-tree-sitter';

/** The node's children that are there, named ones only when asked. */
export const childrenOf = (node: Node, named = false): Node[] => (named ? node.namedChildren : node.children).filter((child): child is Node => child !== null);

/** The literal text of a word: quotes and backslashes removed; undefined when it expands anything. */
export function literalOf(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'regex':
    case 'extglob_pattern':
    case 'variable_name':
      return node.text.includes('$') || node.text.includes('`') ? undefined : node.text.replace(/\\(.)/gs, '$1');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      const parts = childrenOf(node, true);
      if (parts.some((part) => part.type !== 'string_content')) return undefined;
      return parts.map((part) => part.text.replace(/\\([$`"\\\n])/g, '$1')).join('');
    }
    case 'concatenation': {
      let text = '';
      for (const part of childrenOf(node)) {
        const literal = literalOf(part);
        if (literal === undefined) return undefined;
        text += literal;
      }
      return text;
    }
    default:
      return undefined;
  }
}

/** A command's name as literal text, its directory left off (`/usr/bin/bash` → `bash`); undefined when computed. */
export function commandNameOf(command: Node): string | undefined {
  const name = command.childForFieldName('name');
  const word = name?.firstNamedChild;
  const literal = word ? literalOf(word) : undefined;
  return literal?.split('/').pop();
}

/** The arguments of a `command` node, in order. */
export const argumentsOf = (command: Node): Node[] => command.childrenForFieldName('argument').filter((child): child is Node => child !== null);

/** `line L col C`, for messages. */
export const placeOf = (node: Node): string => `line ${node.startPosition.row + 1} col ${node.startPosition.column + 1}`;

/** The function definition whose body holds `node`: it runs when the function is called, not where it stands. */
export function functionOf(node: Node): Node | undefined {
  for (let at = node.parent; at; at = at.parent) if (at.type === 'function_definition') return at;
  return undefined;
}

export const inFunction = (node: Node): boolean => functionOf(node) !== undefined;

/** `(( … ))` as a command: tree-sitter reads it as a compound statement opened by `((`. */
export const isArithmeticCommand = (node: Node): boolean => node.type === 'compound_statement' && node.firstChild?.type === '((';

/** The operators of `[[ … ]]` that evaluate their operands as arithmetic. */
export const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** The declaration builtins' options (`declare -ai x` → `ai`); tree-sitter gives them as words. */
export function declarationFlags(declaration: Node): string {
  return childrenOf(declaration, true)
    .filter((child) => child.type === 'word' && /^-[A-Za-z]+$/.test(child.text))
    .map((child) => child.text.slice(1))
    .join('');
}

/** Every node of the tree below `root`, depth first. */
export function* nodesBelow(root: Node): Generator<Node> {
  const cursor = root.walk();
  try {
    let descending = true;
    for (;;) {
      if (descending) yield cursor.currentNode;
      if (descending && cursor.gotoFirstChild()) continue;
      if (cursor.gotoNextSibling()) {
        descending = true;
        continue;
      }
      if (!cursor.gotoParent()) return;
      descending = false;
      if (cursor.currentNode.id === root.id) return;
    }
  } finally {
    cursor.delete();
  }
}

/** Nodes of an expression, in arithmetic or in `[[ … ]]`. */
const EXPRESSIONS = new Set(['binary_expression', 'unary_expression', 'postfix_expression', 'ternary_expression', 'parenthesized_expression']);

/**
 * Whether `node` is evaluated as arithmetic: inside `$(( … ))`, `(( … ))`, a C-style `for`, an
 * indexed array's subscript, a substring's offset and length, or an operand of `[[ a -eq b ]]`.
 * (A subscript of an associative array is a string: the caller knows which arrays are.)
 */
export function inArithmetic(node: Node, associative: (name: string, at: Node) => boolean = () => false): boolean {
  let child = node;
  for (let at = node.parent; at; child = at, at = at.parent) {
    if (EXPRESSIONS.has(at.type)) {
      const test = testOf(at);
      if (test && !isArithmeticInside(at)) {
        // `[ a -eq b ]` reads numbers only (strtoimax); `[[ a -eq b ]]` evaluates both sides.
        const operator = at.childForFieldName('operator')?.text;
        return test.firstChild?.type === '[[' && operator !== undefined && ARITHMETIC_TESTS.has(operator);
      }
      continue;
    }
    switch (at.type) {
      case 'arithmetic_expansion':
      case 'c_style_for_statement':
        return true;
      case 'compound_statement':
        return isArithmeticCommand(at);
      case 'subscript':
        return child.id === at.childForFieldName('index')?.id && !associative(at.childForFieldName('name')?.text ?? '', at);
      case 'expansion':
        // ${v:offset:length}: what follows a `:` operator.
        return childrenOf(at).some((part) => part.type === ':' && part.endIndex <= child.startIndex);
      default:
        return false;
    }
  }
  return false;
}

/** The `[[ … ]]` or `[ … ]` a node sits in. */
export function testOf(node: Node): Node | undefined {
  for (let at = node.parent; at; at = at.parent) if (at.type === 'test_command') return at;
  return undefined;
}

/** Whether an expression inside `[[ … ]]` sits within arithmetic nested there (`[[ $(( a )) ]]` has none: that is an expansion). */
function isArithmeticInside(expression: Node): boolean {
  for (let at = expression.parent; at && at.type !== 'test_command'; at = at.parent) if (!EXPRESSIONS.has(at.type)) return true;
  return false;
}
