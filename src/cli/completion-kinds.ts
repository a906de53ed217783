/**
 * Which arguments and options take values from the store (issue 32): workflow names, run ids,
 * workspace names. The completion scripts (completion.ts) ask `svc __complete <kind>` for them
 * where the command tree declares an argument or option by one of these placeholders, so a new
 * command that names its argument `<run>` or `<workspace>` is completed with no change here.
 */

export const COMPLETED_KINDS = ['workflows', 'runs', 'workspaces'] as const;
export type CompletedKind = (typeof COMPLETED_KINDS)[number];

/** The placeholder (`<run>`, `[run]`, `--from <run>`) → the kind its values are. */
const BY_PLACEHOLDER: Record<string, CompletedKind> = {
  workflow: 'workflows',
  run: 'runs',
  runA: 'runs',
  runB: 'runs',
  workspace: 'workspaces',
};

/** The kind of an argument or option value named `name` (commander's name, without brackets), if it is completed from the store. */
export const kindOfPlaceholder = (name: string): CompletedKind | undefined => BY_PLACEHOLDER[name];

/** The placeholder of an option's flags (`--workspace <workspace>` → `workspace`). */
export const placeholderOf = (flags: string): string | undefined => /[<[]([A-Za-z]+)(?:\.\.\.)?[>\]]/.exec(flags)?.[1];
