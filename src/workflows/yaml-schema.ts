/**
 * Any YAML file svc reads against a zod schema (a workflow, `.svc/worktree.yaml`): every problem —
 * YAML syntax, duplicate keys, the schema — as one line `file:line:col: path: message`, in source
 * order, each once, so an editor can jump to it.
 */

import type { z } from 'zod';
import { describeProblem, type Problem } from './problems.js';
import { readYamlSource, type SourcePosition, type YamlSource } from './yaml-source.js';
import { problemsFromZodIssues } from './zod-issues.js';

export type YamlValidation<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly errors: string[] };

/** Parses `text` as YAML and checks it with `schema`; never throws for bad input. */
export function validateYamlWith<S extends z.ZodType>(schema: S, text: string, filename: string): YamlValidation<z.output<S>> {
  const source = readYamlSource(text);
  if (source.fatal) return { ok: false, errors: formatProblems(source.problems, source, filename) };
  const parsed = schema.safeParse(source.value);
  const problems = [...source.problems, ...(parsed.success ? [] : problemsFromZodIssues(parsed.error.issues, source.value))];
  if (problems.length === 0 && parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, errors: formatProblems(problems, source, filename) };
}

/** Error lines in source order (when there is a source), each once. */
export function formatProblems(problems: readonly Problem[], source: YamlSource | undefined, filename: string | undefined): string[] {
  const located = problems.map((problem, order) => ({
    text: describeProblem(problem),
    position: source?.locate(problem),
    order,
  }));
  located.sort((a, b) => (a.position?.offset ?? -1) - (b.position?.offset ?? -1) || a.order - b.order);
  const lines = located.map(({ text, position }) => prefix(filename, position) + text);
  return [...new Set(lines)];
}

function prefix(filename: string | undefined, position: SourcePosition | undefined): string {
  const where = position === undefined ? undefined : `${position.line}:${position.col}`;
  if (filename !== undefined && where !== undefined) return `${filename}:${where}: `;
  if (filename !== undefined) return `${filename}: `;
  if (where !== undefined) return `${where}: `;
  return '';
}
