/**
 * YAML text → a plain value, plus a way back from a path in that value to `line:col` in the
 * text. Never throws: syntax errors and duplicate keys become problems like any other.
 */

import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type { PathSegment, Problem } from './problems.js';

export interface SourcePosition {
  readonly offset: number;
  /** 1-based */
  readonly line: number;
  /** 1-based */
  readonly col: number;
}

export interface YamlSource {
  /** The document as plain data (null for an empty document; undefined when it could not be read). */
  readonly value: unknown;
  /** Syntax errors and duplicate keys. */
  readonly problems: Problem[];
  /** True when the text is not well-formed YAML: its value is not worth checking further. */
  readonly fatal: boolean;
  /** Where a problem is in the text: its node, else the nearest enclosing node that exists. */
  locate(problem: Problem): SourcePosition | undefined;
}

type Located = { readonly node: unknown; readonly key: unknown };

/** Walks `path` down the document, as far as it exists. */
function walk(doc: Document, path: readonly PathSegment[]): { found: Located; complete: boolean } {
  let found: Located = { node: doc.contents, key: undefined };
  for (const segment of path) {
    let node = found.node;
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
      if (pair === undefined) return { found: { node, key: undefined }, complete: false };
      found = { node: pair.value, key: pair.key };
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      found = { node: node.items[segment], key: undefined };
    } else {
      return { found: { node, key: undefined }, complete: false };
    }
  }
  return { found, complete: true };
}

function startOf(node: unknown): number | undefined {
  const range = (node as YamlNode | null | undefined)?.range;
  return range === undefined || range === null ? undefined : range[0];
}

/** Path (and key) of the mapping key that starts at `offset` — to name where a duplicate key is. */
function keyAt(doc: Document, offset: number): { path: PathSegment[]; key: string } | undefined {
  const search = (node: unknown, path: PathSegment[]): { path: PathSegment[]; key: string } | undefined => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (isScalar(pair.key) && startOf(pair.key) === offset) return { path, key: String(pair.key.value) };
        const inner = search(pair.value, [...path, isScalar(pair.key) ? String(pair.key.value) : '?']);
        if (inner !== undefined) return inner;
      }
    } else if (isSeq(node)) {
      for (let i = 0; i < node.items.length; i++) {
        const inner = search(node.items[i], [...path, i]);
        if (inner !== undefined) return inner;
      }
    }
    return undefined;
  };
  return search(doc.contents, []);
}

/** The first line of a `yaml` error message, without its own "at line …" suffix. */
function shortMessage(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  return firstLine.replace(/ at line \d+, column \d+:?$/, '');
}

export function readYamlSource(text: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const problems: Problem[] = [];
  let fatal = false;
  for (const error of doc.errors) {
    const offset = error.pos[0];
    if (error.code === 'DUPLICATE_KEY') {
      const where = keyAt(doc, offset);
      if (where !== undefined) {
        problems.push({ path: where.path, message: `duplicate key '${where.key}'`, offset });
        continue;
      }
    }
    fatal = true;
    problems.push({ path: [], message: `invalid YAML: ${shortMessage(error.message)}`, offset });
  }

  let value: unknown;
  if (!fatal) {
    try {
      value = doc.toJS();
    } catch (error) {
      // e.g. too many alias expansions (the "billion laughs" guard)
      fatal = true;
      problems.push({ path: [], message: `invalid YAML: ${error instanceof Error ? error.message : String(error)}`, offset: 0 });
    }
  }

  const position = (offset: number): SourcePosition => ({ offset, ...lineCounter.linePos(offset) });

  return {
    value,
    problems,
    fatal,
    locate(problem) {
      if (problem.offset !== undefined) return position(problem.offset);
      const { found, complete } = walk(doc, problem.at ?? problem.path);
      if (complete && problem.key !== undefined) {
        // Point at the key itself (unknown keys): `found.node` is the mapping that holds it.
        const inner = walk(doc, [...(problem.at ?? problem.path), problem.key]);
        const keyStart = inner.complete ? startOf(inner.found.key) : undefined;
        if (keyStart !== undefined) return position(keyStart);
      }
      // An empty value (`timeout:`) has no text of its own; its key is the better place.
      const node = found.node;
      const empty = isScalar(node) && node.value === null && node.range?.[0] === node.range?.[1];
      const start = (complete && !empty ? startOf(node) : undefined) ?? startOf(found.key) ?? startOf(node) ?? startOf(doc.contents);
      return start === undefined ? undefined : position(start);
    },
  };
}
