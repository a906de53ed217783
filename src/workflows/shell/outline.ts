/**
 * What the scanner (scanner.ts) finds in a bash script, for the checks of outside values
 * (check.ts): the simple commands with their words, the arithmetic regions, the parameter
 * expansions. Offsets are into `source`, the text the item was scanned from: the script itself, or
 * the unescaped body of a backtick substitution, or the literal code given to `eval` or `trap`.
 */

/** A part of a word that the shell replaces when it runs: what makes a word more than literal text. */
export interface Expansion {
  readonly kind: 'parameter' | 'command' | 'arithmetic' | 'backtick' | 'process' | 'splice';
  /** For 'parameter': the variable's name, a digit (positional) or a special character (`@`, `#`, `?`…). */
  readonly name?: string;
  /**
   * For 'parameter': `plain` ($v, ${v}, ${v[i]}), `length` (${#v}), `indirect` (${!v}), `keys`
   * (${!v[@]}, ${!prefix*}) or `operator` (${v:-…}, ${v/…}, ${v@P}, …; see `op`).
   */
  readonly form?: 'plain' | 'length' | 'indirect' | 'keys' | 'operator';
  readonly op?: string;
}

export interface Span {
  readonly source: string;
  readonly start: number;
  readonly end: number;
}

export interface Assignment {
  readonly name: string;
  readonly append: boolean;
  /** `NAME[…]=`: the index. */
  readonly subscript?: Span;
  /** The value after `=`; undefined for a compound value `NAME=(…)`. */
  readonly value?: ShellWord;
  /** The elements of a compound value `NAME=(…)`. */
  readonly elements?: readonly ShellWord[];
}

export interface ShellWord extends Span {
  /** The word's text once quotes are removed, when it has no expansion; otherwise undefined. */
  readonly literal: string | undefined;
  /** The literal parts of the word (its text without the expansions). */
  readonly text: string;
  readonly expansions: readonly Expansion[];
  /** An unquoted `*`, `?` or `[`: the shell may replace the word by file names. */
  readonly glob: boolean;
  readonly assignment?: Assignment;
}

export interface Redirect {
  readonly op: string;
  readonly target?: ShellWord;
  /** For `<<` and `<<-`: whether the delimiter was quoted (the body is then literal) and the body. */
  heredoc?: { readonly quoted: boolean; body?: Span; expanded?: boolean };
}

export type CommandKind = 'simple' | 'for' | 'cond';

export interface SimpleCommand {
  readonly source: string;
  readonly start: number;
  end: number;
  /** `for`/`select` headers hold the loop variable then the list; `cond` is `[[ … ]]`. */
  kind: CommandKind;
  readonly assignments: ShellWord[];
  readonly words: ShellWord[];
  readonly redirects: Redirect[];
  /** The operator after the command: `;`, `\n`, `&&`, `||`, `|`, `&`, or '' (end, `)`, a keyword). */
  separator: string;
  /** Whether a `|` led into it: a pipeline element runs in a subshell. */
  readonly piped: boolean;
}

export type ArithmeticKind =
  | 'arithmetic-expansion' // $(( … ))
  | 'old-arithmetic' // $[ … ]
  | 'arithmetic-command' // (( … ))
  | 'for' // for (( … ))
  | 'subscript' // a[…]
  | 'substring' // ${v:offset:length}
  | 'let'
  | 'integer' // the value assigned to a `declare -i` variable
  | 'comparison'; // [[ a -eq b ]]

export interface ArithmeticRegion extends Span {
  readonly kind: ArithmeticKind;
}

/** A `${…}` expansion, for the forms that write (`${v:=x}`) or run (`${v@P}`) or name a variable (`${!v}`). */
export interface ParameterUse extends Span {
  readonly name: string;
  readonly form: NonNullable<Expansion['form']>;
  readonly op?: string;
}

export interface ShellOutline {
  readonly commands: SimpleCommand[];
  readonly arithmetic: ArithmeticRegion[];
  readonly parameters: ParameterUse[];
  /** Names of the functions the script defines. */
  readonly functions: Set<string>;
  /** Set when the script nests deeper than the scanner follows; the outline is then incomplete. */
  tooDeep: boolean;
}

export function emptyOutline(): ShellOutline {
  return { commands: [], arithmetic: [], parameters: [], functions: new Set(), tooDeep: false };
}

export const textOf = (span: Span): string => span.source.slice(span.start, span.end);

/** A short quotation of script text for messages. */
export function snippet(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}
