import type { CommandContext } from './context.js';

/** A positional argument: commander syntax (`<run>`, `[run]`, `[message...]`), description, fixed choices. */
export type ArgSpec = readonly [syntax: string, description: string, choices?: readonly string[]];
/** An option: commander flags (`-m, --comment <text>`, `--mark-only`), description. */
export type OptionSpec = readonly [flags: string, description: string];

type ArgValue<S extends string> = S extends `${string}...${string}` ? string[] : S extends `<${string}>` ? string : string | undefined;
export type ArgValues<A extends readonly ArgSpec[]> = { [K in keyof A]: A[K] extends readonly [infer S extends string, ...unknown[]] ? ArgValue<S> : never };
type OptionValue<F extends string> = F extends `${string}<${string}>${string}` ? string | undefined : boolean | undefined;
export type OptionValues<O extends Record<string, OptionSpec>> = { [K in keyof O]: OptionValue<O[K][0]> };

/** What a command's file exports: its arguments and options, typed where they are declared, and its work. */
export interface CommandDefinition<A extends readonly ArgSpec[] = readonly ArgSpec[], O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  args: A;
  options: O;
  /** Returns the exit code (nothing: 0). */
  run(cmd: CommandContext, args: ArgValues<A>, options: OptionValues<O>): Promise<number | void>;
}

/**
 * Declares a command (one file per verb, as gh does): `program.ts` names it and loads this
 * definition only when the command runs, or when help or completion needs its arguments.
 * The option keys must be commander's names for the flags (`--mark-only` → `markOnly`).
 */
export function defineCommand<
  const A extends readonly ArgSpec[] = readonly [],
  const O extends Record<string, OptionSpec> = Record<never, OptionSpec>,
>(definition: {
  args?: A;
  options?: O;
  run(cmd: CommandContext, args: ArgValues<A>, options: OptionValues<O>): Promise<number | void>;
}): CommandDefinition<A, O> {
  return { args: (definition.args ?? []) as unknown as A, options: (definition.options ?? {}) as O, run: definition.run };
}

/** Options shared by several commands. */
export const CWD_OPTION = ['--cwd <dir>', 'project directory whose .svc/ is used (default: the current directory)'] as const satisfies OptionSpec;
export const RUN_ARG = ['<run>', 'run id or unambiguous prefix'] as const satisfies ArgSpec;
