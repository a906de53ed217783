/**
 * `$<id>.output` references and run variables in node text (docs/contract.md, "Workflow files"), and the two ways the run
 * engine substitutes them:
 * - prompts are text for an agent, so everything is substituted as plain text;
 * - bash scripts are code, so no value is ever put into their text: `$<id>.output` is rewritten to
 *   a quoted expansion of an environment variable holding the output, and user-controlled values
 *   (`$ARGUMENTS`, webhook variables) reach the script as environment variables, left for the
 *   shell to expand.
 * Both substitute in one pass over the original text, so a substituted value is never scanned
 * again: a message containing `$RUN_ID` or `$secret.output` stays literally that.
 */

import { OUTPUT_REF_SOURCE } from './output-ref.js';
import { PROMPT_VARIABLES, type PromptVariable } from './run-variables.js';
import { outsideValueProblems, scanShell, unsafeContextAdvice, UNSAFE_SHELL_CONTEXTS } from './shell/index.js';
import type { ShellContext } from './shell/index.js';

export interface OutputRef {
  /** The referenced node id. */
  readonly id: string;
  /** Offset of the `$`. */
  readonly start: number;
  /** Offset just past `.output`. */
  readonly end: number;
}

export interface BashOutputRef extends OutputRef {
  /** Where the reference sits in the script's quoting; see shell/contexts.ts. */
  readonly context: ShellContext;
}

const PROMPT_VARIABLE_SET: ReadonlySet<string> = new Set(PROMPT_VARIABLES);

/** Every `$<id>.output` in `text`, in order. */
export function findOutputRefs(text: string): OutputRef[] {
  const refs: OutputRef[] = [];
  for (const match of text.matchAll(new RegExp(OUTPUT_REF_SOURCE, 'g'))) {
    refs.push({ id: match[1] as string, start: match.index, end: match.index + match[0].length });
  }
  return refs;
}

/** Every `$<id>.output` in a bash script, with its quoting context. */
export function findBashOutputRefs(script: string): BashOutputRef[] {
  const refs = findOutputRefs(script);
  if (refs.length === 0) return [];
  const scan = scanShell(script, new Map(refs.map((ref) => [ref.start, ref.end])));
  return refs.map((ref) => ({ ...ref, context: scan.contextAt(ref.start) }));
}

/**
 * Substitutes run variables and outputs into a prompt, as plain text. Only the names of
 * PROMPT_VARIABLES that are present in `vars` are replaced; a name is matched whole, so
 * `$ARGUMENTS_X` or `$RUN_IDS` are left alone. A referenced node without output (skipped) reads as "".
 */
export function renderPrompt(
  text: string,
  vars: Readonly<Partial<Record<PromptVariable, string>>> | Readonly<Record<string, string>>,
  outputs: Readonly<Record<string, string>>,
): string {
  const values = vars as Readonly<Record<string, string | undefined>>;
  const pattern = new RegExp(`${OUTPUT_REF_SOURCE}|\\$([A-Za-z_][A-Za-z0-9_]*)`, 'g');
  return text.replace(pattern, (whole, nodeId: string | undefined, name: string | undefined) => {
    if (nodeId !== undefined) return outputs[nodeId] ?? '';
    if (name !== undefined && PROMPT_VARIABLE_SET.has(name) && Object.hasOwn(values, name)) {
      return values[name] ?? whole;
    }
    return whole;
  });
}

/** A value as one single-quoted shell word: `it's` → `'it'\''s'`. NUL cannot be passed to bash and is dropped. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll('\0', '').replaceAll("'", "'\\''")}'`;
}

/** A bash script as svc hands it to bash: references rewritten, and the values they name. */
export interface RenderedBash {
  /** The script, each live `$<id>.output` now a quoted expansion of its variable: no byte of any output in it. */
  readonly script: string;
  /** The variables the script expands (`SVC_OUTPUT_<id>`) and their values, NUL dropped: the node's environment carries them. */
  readonly values: Readonly<Record<string, string>>;
}

/** The variable `$<id>.output` becomes: `SVC_OUTPUT_<id>`, `-` as `_`, numbered when two ids meet in one name. */
function outputVariables(ids: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const id of [...new Set(ids)].sort()) {
    const base = `SVC_OUTPUT_${id.replaceAll('-', '_')}`;
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    names.set(id, name);
  }
  return names;
}

/**
 * Rewrites `$<id>.output` in a bash script to a quoted expansion of an environment variable that
 * holds the output (docs/contract.md, "Workflow files"): a reference, not a splice — the value is
 * data bash reads from its environment, never text bash parses. A bare reference becomes
 * `"$SVC_OUTPUT_id"`; inside "…" `${SVC_OUTPUT_id}`; inside '…' the quotes are closed around
 * `"${SVC_OUTPUT_id}"` and reopened. Each yields the value verbatim, as one word. References in
 * comments and after a backslash are left as written. Throws for a reference where no expansion is
 * safe, and for a script that uses a value from outside where bash would run it as code: validation
 * refuses such scripts, and the engine validates a run's definition again when it starts, so this
 * is the last guard, not the first.
 */
export function renderBash(script: string, outputs: Readonly<Record<string, string>>): RenderedBash {
  const [problem] = outsideValueProblems(script);
  if (problem !== undefined) throw new Error(problem);
  const refs = findBashOutputRefs(script).filter(isLiveBashRef);
  const names = outputVariables(refs.map((ref) => ref.id));
  const values: Record<string, string> = {};
  let rendered = '';
  let copied = 0;
  for (const ref of refs) {
    const name = names.get(ref.id)!;
    values[name] = (outputs[ref.id] ?? '').replaceAll('\0', '');
    let word: string;
    switch (ref.context) {
      case 'word':
        word = `"$\{${name}}"`;
        break;
      case 'double-quoted':
        word = `$\{${name}}`;
        break;
      case 'single-quoted':
        word = `'"$\{${name}}"'`;
        break;
      default:
        throw new Error(unsafeContextAdvice(ref.context, `$${ref.id}.output`));
    }
    rendered += script.slice(copied, ref.start) + word;
    copied = ref.end;
  }
  return { script: rendered + script.slice(copied), values };
}

/** True when a bash reference is one that gets substituted (not commented out or escaped). */
export function isLiveBashRef(ref: BashOutputRef): boolean {
  return ref.context !== 'comment' && ref.context !== 'escaped';
}

/** True when a bash reference sits where no substitution is safe. */
export function isUnsafeBashRef(ref: BashOutputRef): boolean {
  return UNSAFE_SHELL_CONTEXTS.has(ref.context);
}
