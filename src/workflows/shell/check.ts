/**
 * The places in a bash script where a value from outside — a run message, a webhook's payload or
 * key, a node's output — would run as code, which validation refuses (docs/workflows.md, "Values
 * from outside in bash"). A script that takes no such value (no `$<id>.output`, no outside
 * variable or `ARTIFACTS_DIR` named) is not checked: svc gives it nothing to run. In one that does, these must be
 * literal text or hold only what the script chose: arithmetic (only numbers, see arithmetic.ts and
 * names.ts), the code given to `eval`, `trap`, `bash -c`, `python -c`, awk, sed and ssh, command
 * names, the files `source` runs, and variable names (`read`, `unset`, `printf -v`, `${!v}`).
 * Literal code given to another shell is checked the same way; literal code run by this shell
 * (`eval '…'`, `trap '…'`) is read as part of the script.
 */

import { VARIABLES_TO_OUTSIDE } from '../run-variables.js';
import { ARITHMETIC_PLACES, arithmeticProblems } from './arithmetic.js';
import { readCommand } from './commands.js';
import { checkNumberFirst, UNSAFE_SHELL_CONTEXTS } from './contexts.js';
import { nameFacts, type NameFacts } from './names.js';
import { snippet, textOf, type ArithmeticKind, type ShellOutline, type ShellWord, type SimpleCommand, type Span } from './outline.js';
import { emptyReading, mergeReading, type CodeUse, type CommandReading } from './reading.js';
import { loadBashParser } from './bash-parser.js';
import { constructProblems, TAKES } from './constructs.js';
import { parserDisagreements, parseScript } from './parser-agreement.js';
import { normalPath, programInput, unquoted, writtenFiles } from './program-sources.js';
import { placementProblems } from './placement.js';
import { isTrusted } from './kind.js';
import { readTaint, type Taint } from './taint.js';
import { findRefsIn, scanInto, scanShell } from './scanner.js';

const TAKES_OUTSIDE = new RegExp(String.raw`(?<![A-Za-z0-9_])(?:${VARIABLES_TO_OUTSIDE.join('|')})(?![A-Za-z0-9_])`);
/**
 * bash's own variables with the integer attribute: a value assigned to one is evaluated as
 * arithmetic, as a `declare -i` variable's is (measured with bash 5.2: RANDOM, SRANDOM, OPTIND,
 * HISTCMD; SECONDS and LINENO are integers in other versions).
 */
const BASH_INTEGERS = ['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS', 'LINENO'];
/** An unquoted brace expansion in a word: `{a,b}`, `{1..3}`. */
const BRACE_EXPANSION = /(?:^|[^\\$'"])\{[^{}'"\s]*(?:,|\.\.)[^{}'"\s]*\}/;
/** Code handed to code handed to code …: deeper than this is not followed (and refused). */
const MAX_CODE_DEPTH = 8;
const TOO_DEEP = 'the script nests code too deeply for svc to check how it uses values from outside; simplify it';

/** How many checks were made without the bash parser (it was not loaded yet): checkedWhole's cue. */
let checksWithoutParser = 0;

/**
 * `check()` — a validation — answered whole: when one of the scripts it checked took values from
 * outside and the bash parser was not loaded yet, the parser is loaded and `check` asked again. So
 * the parser loads only for such a script (bash-parser.ts).
 */
export async function checkedWhole<T>(check: () => T): Promise<T> {
  const before = checksWithoutParser;
  const answer = check();
  if (checksWithoutParser === before) return answer;
  await loadBashParser();
  return check();
}

/** Answers for recent scripts: validation and every run of a node ask about the same script. */
const recent = new Map<string, readonly string[]>();
const RECENT_SCRIPTS = 64;
const RECENT_SCRIPT_LENGTH = 64 * 1024;

/**
 * The problems of a bash script with values from outside; none for a script that takes none. Made
 * before the bash parser is loaded, the answer lacks the parser's second reading and is not kept.
 */
export function outsideValueProblems(script: string): readonly string[] {
  const known = recent.get(script);
  if (known) return known;
  const { problems, complete } = findProblems(script);
  if (!complete) checksWithoutParser++;
  if (complete && script.length <= RECENT_SCRIPT_LENGTH) {
    if (recent.size >= RECENT_SCRIPTS) recent.delete(recent.keys().next().value as string);
    recent.set(script, problems);
  }
  return problems;
}

function findProblems(script: string): { problems: readonly string[]; complete: boolean } {
  const refs = findRefsIn(script);
  const scan = scanShell(script, refs);
  const live = (offset: number) => !['comment', 'escaped'].includes(scan.contextAt(offset));
  if (![...refs.keys()].some(live) && !TAKES_OUTSIDE.test(script)) return { problems: [], complete: true };
  // A splice in an unsafe quoting context is reported by the context check already.
  const toReport = (offset: number) => live(offset) && !UNSAFE_SHELL_CONTEXTS.has(scan.contextAt(offset));
  const tree = parseScript(script);
  if (!tree) return { problems: new Checker(script, toReport, 0).check(scan.outline), complete: false };
  try {
    // What follows trusts the scanner's reading; a script it reads differently from bash is refused first.
    const misread = parserDisagreements(script, scan.outline, tree);
    if (misread.length) return { problems: misread, complete: true };
    // The scanner's rules name the known ways a value runs as code, with advice for each; a script
    // they pass must also pass the positive policy: a value from outside only where bash treats it as data.
    const taint = readTaint(tree.rootNode, new Set([...refs.keys()].filter(live)), script);
    const known = new Checker(script, toReport, 0, undefined, taint).check(scan.outline);
    if (known.length) return { problems: known, complete: true };
    return { problems: placementProblems(taint, script), complete: true };
  } finally {
    tree.delete();
  }
}

class Checker {
  private readonly problems = new Set<string>();
  /** What this script's variables hold, passed on to code it hands to another shell. */
  private facts?: NameFacts;
  /** Files the script writes with `>` or `tee`: running one would run what was written there. */
  private written = new Set<string>();

  constructor(
    private readonly script: string,
    private readonly spliceToReport: (offset: number) => boolean,
    private readonly depth: number,
    private readonly inherited?: NameFacts,
    /** What bash's parse says each value of the script holds (taint.ts); for the script itself, not code it hands on. */
    private readonly taint?: Taint,
  ) {}

  /** Whether bash's parse shows that a word of the script holds only what the script or svc chose. */
  private trusted(word: ShellWord): boolean {
    const kind = word.source === this.script ? this.taint?.wordKind(word.start, word.end) : undefined;
    return kind !== undefined && isTrusted(kind);
  }

  /** An array's subscript in the script, when the array is associative: its index is a string, not arithmetic. */
  private associativeIndex(span: Span): boolean {
    if (span.source !== this.script || !this.taint) return false;
    const name = /([A-Za-z_][A-Za-z0-9_]*)\[$/.exec(span.source.slice(Math.max(0, span.start - 200), span.start))?.[1];
    return name !== undefined && this.taint.isAssociative(name, span.start);
  }

  check(outline: ShellOutline): string[] {
    const readings = this.read(outline);
    const all = emptyReading();
    for (const reading of readings.values()) mergeReading(all, reading);
    for (const use of outline.parameters) {
      if (use.op === ':=' || use.op === '=') all.writes.push({ name: use.name, how: snippet(textOf(use)), scalar: false, assignment: false, local: false });
    }
    const integers = new Set([...all.integers, ...BASH_INTEGERS]);
    const commands = outline.commands;
    const facts = nameFacts(all.writes, {
      integers,
      commandsIn: (word) => commands.filter((command) => command.source === word.source && command.start >= word.start && command.end <= word.end),
      namerefs: new Set(all.namerefs),
      checksEndTheScript: !this.endingsRedefined(outline, all),
      ...(this.inherited ? { inherited: this.inherited } : {}),
    });
    this.facts = facts;
    this.written = writtenFiles(outline);
    if (outline.tooDeep) this.problems.add(TOO_DEEP);
    for (const region of outline.arithmetic) if (!(region.kind === 'subscript' && this.associativeIndex(region))) this.arithmetic(region, region.kind, facts);
    for (const { word, kind } of all.arithmetic) this.arithmetic(word, kind, facts);
    for (const write of all.writes) {
      if (!integers.has(write.name)) continue;
      if (write.assignment) for (const value of write.values ?? []) this.arithmetic(value, 'integer', facts);
      else
        this.problems.add(
          `${write.name} is an integer variable (declare -i, or one of bash's own), so ${write.how} evaluates what it reads as an arithmetic expression, running any $(…) in it; read into a plain variable and check it first`,
        );
    }
    for (const use of outline.parameters) {
      if (use.op === '@P') this.problems.add(`\${${use.name}@P} expands the value like a prompt, running any $(…) in it; it cannot be used ${TAKES}`);
      const reason = use.form === 'indirect' ? facts.notClean(use.name) : undefined;
      if (reason !== undefined) {
        this.problems.add(
          `\${!${use.name}} uses the value of ${use.name} as a variable name, and ${reason}: bash evaluates an array index in a name, running any $(…) in it`,
        );
      }
    }
    for (const [command, reading] of readings) this.commandProblems(command, reading, facts);
    return [...this.problems];
  }

  /** Reads every command; literal code this shell runs (`eval '…'`, `trap '…'`) is scanned into the outline and read too. */
  private read(outline: ShellOutline): Map<SimpleCommand, CommandReading> {
    const readings = new Map<SimpleCommand, CommandReading>();
    for (let k = 0; k < outline.commands.length; k++) {
      const command = outline.commands[k] as SimpleCommand;
      const reading = readCommand(command);
      readings.set(command, reading);
      for (const code of reading.code) {
        const text = code.text ?? code.word.literal;
        if (code.shell === 'same' && text !== undefined) scanInto(text, outline, this.depth + 1);
      }
      for (const { shell } of reading.stdinCode) {
        const input = programInput(command);
        if (shell === 'same' && typeof input === 'string') scanInto(input, outline, this.depth + 1); // source /dev/stdin <<'EOF'
      }
    }
    return readings;
  }

  /** A script that redefines `exit` or `return` (a function, an alias, `enable -n`) makes a check on the next line mean nothing. */
  private endingsRedefined(outline: ShellOutline, all: CommandReading): boolean {
    if (outline.functions.has('exit') || outline.functions.has('return')) return true;
    if (all.commandNames.some((word) => word.literal === 'enable')) return true;
    return all.code.some((code) => code.runner === 'alias'); // an alias may stand for any word of the check
  }

  private arithmetic(span: Span, kind: ArithmeticKind, facts: NameFacts): void {
    const where = ARITHMETIC_PLACES[kind];
    const evaluates = 'bash evaluates it as an arithmetic expression and runs any $(…) in it';
    const numberAt = span.source === this.script ? this.taint?.numberAt : undefined;
    for (const problem of arithmeticProblems(span, facts.notNumeric, numberAt)) {
      switch (problem.kind) {
        case 'splice':
          if (span.source === this.script && this.spliceToReport(problem.offset)) {
            this.problems.add(`${problem.ref} cannot be used in ${where}: ${evaluates}; ${checkNumberFirst(problem.ref)}`);
          }
          break;
        case 'outside':
          this.problems.add(
            `$${problem.name} holds a value from outside and cannot be used in ${where}, with or without $: ${evaluates}; ${checkNumberFirst(`$${problem.name}`)}`,
          );
          break;
        case 'name':
          this.problems.add(
            `${problem.name} cannot be used in ${where} ${TAKES}: ${problem.reason}, and bash evaluates a variable's value there as an expression, running any $(…) in it; check it after it is set: [[ $${problem.name} =~ ^[0-9]+$ ]] || exit 1`,
          );
          break;
        case 'expansion':
          this.problems.add(`${problem.text} cannot be used in ${where} ${TAKES}: ${evaluates}; ${checkNumberFirst(problem.text)}`);
          break;
      }
    }
  }

  private commandProblems(command: SimpleCommand, reading: CommandReading, facts: NameFacts): void {
    for (const problem of constructProblems(command, facts)) this.problems.add(problem);
    for (const word of reading.commandNames) {
      if (word.literal === undefined) {
        // A name made of what the script chose (`"${cmd[@]}"` after `cmd=(git status)`) runs what the script chose.
        if (!this.trusted(word)) this.problems.add(`the command name ${snippet(textOf(word))} must be literal text ${TAKES}: a value there chooses what runs`);
      } else if (BRACE_EXPANSION.test(textOf(word)))
        // `{eval,eval} "$v"` is `eval eval "$v"` to bash: the words it makes are a command svc does not see.
        this.problems.add(
          `the command name ${snippet(textOf(word))} is a brace expansion, which bash turns into other words ${TAKES}: name the command plainly`,
        );
      else {
        this.replaced(word.literal, reading);
        if (word.literal.includes('/')) this.runsWritten(word, word.literal);
      }
    }
    for (const code of reading.code) {
      const text = code.text ?? code.word.literal;
      if (text === undefined) {
        // Code built from what the script chose (`trap "rm -f $tmp" EXIT`, `sed "s/V/$version/"`):
        // what it runs is checked as code of its own, where it can be read as text.
        const chosen = this.trusted(code.word) ? unquoted(textOf(code.word)) : undefined;
        if (chosen === undefined)
          this.problems.add(`${code.runner} runs ${snippet(textOf(code.word))} as code: ${TAKES} it must be literal text; ${codeAdvice(code)}`);
        else if (code.shell !== 'other') this.nested(chosen, code.runner);
      } else if (code.shell === 'new') {
        this.replaced(text, reading);
        this.nested(text, code.runner);
      }
    }
    for (const { word, runner } of reading.paths) {
      this.runsWritten(word, runner);
      // The run's artifacts hold node outputs and the payload: running one runs a value from outside.
      if (
        word.expansions.some((expansion) => expansion.kind === 'parameter' && (expansion.name === 'ARTIFACTS_DIR' || expansion.name === 'TRIGGER_PAYLOAD_FILE'))
      )
        this.problems.add(
          `${runner} runs ${snippet(textOf(word))}, a file of the run's artifacts, where node outputs and the payload are written ${TAKES}: read it as data instead`,
        );
      const reason = this.trusted(word) ? undefined : this.unclean(word, facts);
      if (reason !== undefined) this.problems.add(`${runner} runs or loads the file ${snippet(textOf(word))} names, and ${reason}; name the file literally`);
    }
    // A name must be literal, whoever chose it: an index inside it is evaluated (`w='a[$v]'; read "$w"`).
    for (const { word, runner } of reading.names) this.variableName(word, runner, facts);
    for (const { word, runner } of reading.literalOnly) {
      if (word.literal !== undefined || this.trusted(word)) continue;
      this.problems.add(
        runner === 'ssh'
          ? `ssh hands its words to a shell on the remote host: ${TAKES} they must be literal text, not ${snippet(textOf(word))}; send values on standard input: printf '%s' "$v" | ssh host 'read -r v; …'`
          : `${runner} expands or loads ${snippet(textOf(word))}: ${TAKES} it must be literal text`,
      );
    }
    for (const { runner, shell } of reading.stdinCode) this.standardInput(command, runner, shell, facts);
  }

  private runsWritten(word: ShellWord, runner: string): void {
    if (word.literal === undefined || !this.written.has(normalPath(word.literal))) return;
    this.problems.add(
      `${runner} runs ${word.literal}, a file this script writes: a value from outside written there would run; pass values to what you run as arguments instead`,
    );
  }

  /** xargs -I and find -exec put a value where their replacement string stands. */
  private replaced(text: string, reading: CommandReading): void {
    for (const replacement of reading.replacements) {
      if (text.includes(replacement)) {
        this.problems.add(
          `${replacement} in ${snippet(text)} is replaced by a value (xargs -I, find -exec) in code or a command name; pass it as an argument instead: sh -c '… "$1" …' _ ${replacement}`,
        );
      }
    }
  }

  /** Why a word naming a file may hold a value from outside, or undefined. */
  private unclean(word: ShellWord, facts: NameFacts): string | undefined {
    if (word.literal !== undefined || facts.cleanWord(word)) return undefined;
    for (const expansion of word.expansions) {
      if (expansion.kind === 'splice') return 'it holds the output of a node';
      if (expansion.kind !== 'parameter') return `${expansion.kind === 'process' ? 'a process substitution' : 'a command substitution'} makes it`;
      const reason =
        expansion.form === 'length'
          ? undefined
          : expansion.form === 'plain' || expansion.form === 'keys'
            ? facts.notClean(expansion.name ?? '')
            : 'it is made by a ${…} operator';
      if (reason !== undefined) return expansion.form === 'plain' ? `${expansion.name}: ${reason}` : reason;
    }
    return undefined;
  }

  /** A word that names a variable: a literal name, or a literal name with an index that is arithmetic. */
  private variableName(word: ShellWord, runner: string, facts: NameFacts): void {
    const literal = word.literal !== undefined;
    const text = literal ? (word.literal as string) : textOf(word);
    const indexed = literal ? /^[A-Za-z_][A-Za-z0-9_]*\[(.*)\]$/s.exec(text) : /^(["']?)[A-Za-z_][A-Za-z0-9_]*\[(.*)\]\1$/s.exec(text);
    if (indexed) {
      const index = indexed[indexed.length - 1] as string;
      const start = (literal ? 0 : word.start) + text.indexOf('[') + 1;
      if (index !== '@' && index !== '*') this.arithmetic({ source: literal ? text : word.source, start, end: start + index.length }, 'subscript', facts);
    } else if (!literal) {
      this.problems.add(
        `${runner} takes a variable name, and ${snippet(text)} is not a literal one: ${TAKES} bash would evaluate an array index inside a name from a value, running any $(…) in it`,
      );
    }
  }

  /** A program read from standard input: only a literal here-document or here-string can be checked. */
  private standardInput(command: SimpleCommand, runner: string, shell: CodeUse['shell'], facts: NameFacts): void {
    const input = programInput(command);
    if (typeof input === 'string') {
      if (shell === 'new') this.nested(input, runner);
      return;
    }
    if ('file' in input) {
      this.runsWritten(input.file, runner);
      const reason = this.unclean(input.file, facts);
      if (reason !== undefined) this.problems.add(`${runner} runs the file ${snippet(textOf(input.file))} names, and ${reason}; name the file literally`);
      return;
    }
    this.problems.add(
      `${runner} reads its program from ${input.from}: ${TAKES} give it a file, or a here-document with a quoted delimiter (<<'EOF') so that nothing is put into the program`,
    );
  }

  /** Literal code another shell runs: checked as a script of its own that takes values from outside. */
  private nested(text: string, runner: string): void {
    if (this.depth + 1 > MAX_CODE_DEPTH) {
      this.problems.add(TOO_DEEP);
      return;
    }
    const problems = new Checker(text, () => false, this.depth + 1, this.facts).check(scanShell(text).outline);
    for (const problem of problems) this.problems.add(problem === TOO_DEEP ? TOO_DEEP : `in the code given to ${runner}: ${problem}`);
  }
}

function codeAdvice(code: CodeUse): string {
  if (code.shell === 'new') return `pass values as arguments instead: ${code.runner} '… "$1" …' _ "$v"`;
  if (code.runner === 'eval') return 'run the command directly, with the value as an argument';
  if (code.runner === 'trap') return `write the handler in single quotes: trap 'rm -f "$tmp"' EXIT`;
  if (code.runner.startsWith('PS') || code.runner === 'PROMPT_COMMAND') return 'bash expands it like a prompt, running any $(…) in it';
  if (code.runner.includes('awk')) return `pass values through the environment: v="$x" awk '{ print ENVIRON["v"] }'`;
  if (code.runner.includes('sed')) return "GNU sed's e command runs shell commands; pass values to a tool that reads them as data (awk's ENVIRON, perl's %ENV)";
  return 'pass values as arguments or environment variables, never inside the program text';
}
