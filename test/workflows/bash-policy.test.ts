// The positive policy for values from outside in bash (issue 31; docs/decisions.md, "A positive
// policy"): a value from outside, and every variable made from one, may stand only where bash
// treats it as data. Each refused form below was accepted before and runs a hostile value when
// nothing is refused (checked against a real bash: the table is honest); the safe forms validate
// and run, whatever the value, without running it.
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBash } from '../../src/workflows/references.js';
import { loadBashParser } from '../../src/workflows/shell/bash-parser.js';
import { bashErrors } from '../helpers/bash-node.js';
import { runCli } from '../helpers/cli.js';
import { hostileDir, PAYLOADS, renderUnchecked } from '../helpers/hostile-bash.js';
import { cleanupAll, projectWithWorkflows, startRun, startServer, waitForRun } from '../helpers/runs.js';

// The check made whole, as before a script runs: with the bash parser's reading.
beforeAll(() => loadBashParser());
const hostile = hostileDir('svc-bash-policy-');
afterAll(() => hostile.remove());

/** Forms the check accepted before issue 31's policy, where bash runs the value: each is refused now, with the part of the message that says why. */
const REFUSED: readonly [string, string][] = [
  // code read from the standard input, by a path or a process substitution
  ['v=$x.output; bash < <(printf "%s" "$v")', 'bash reads its program from there'],
  ['v=$x.output; exec 3< <(printf \'%s\' "$v"); bash /dev/fd/3', 'bash reads its program from'],
  ['v=$x.output; printf \'%s\' "$v" | BASH_ENV=/dev/stdin bash -c :', 'BASH_ENV reads its program from a pipe'],
  // a file the script writes, named another way when it runs
  ['v=$x.output; printf \'%s\' "$v" > run.sh; bash .//run.sh', 'bash runs .//run.sh, a file this script writes'],
  ['v=$x.output; printf \'%s\' "$v" > x; . ./x', '. runs ./x, a file this script writes'],
  // unquoted, a value splits into words, and a word becomes an option
  ['v=$x.output; find . -maxdepth 0 -name $v', 'unquoted, bash splits it into words'],
  // git's configuration names commands
  ['v=$x.output; git -c "$v" x 2>/dev/null', 'git -c runs "$v" as code'],
  // what a regular expression matched of the value
  ['v=$x.output; [[ $v =~ (.*) ]] && eval "${BASH_REMATCH[1]}"', 'eval runs'],
  // a check that cannot end the script: exit disabled
  ['v=$x.output; enable -n exit; [[ $v =~ ^[0-9]+$ ]] || exit 1; echo $(( v ))', 'v cannot be used in $(( … ))'],
];

/** Forms refused by the policy whatever bash would do with a payload today: the value stands where bash does not treat it as data. */
const REFUSED_BY_PLACE: readonly [string, RegExp][] = [
  ['v=$x.output; echo $v', /line 1 col 19: v is set by v=\$x\.output; check it first: .*, and unquoted, bash splits it/],
  ['v=$x.output; for w in $v; do echo "$w"; done', /line 1 col 23: .*unquoted/],
  [
    'echo $(( n + 1 )); echo "$ARGUMENTS"',
    /line 1 col 10: n: the script never sets it, so svc cannot know what it holds, and bash evaluates its value there as an arithmetic expression/,
  ],
  ['v=$x.output; cd "$v"; eval "ls $PWD"', /eval runs/],
  ['while IFS= read -r line; do eval "$line"; done < "$TRIGGER_PAYLOAD_FILE"', /eval runs/],
  ['select x in "$ARGUMENTS"; do eval "$x"; done', /eval runs/],
  ['v=$x.output; getopts ab opt "$v"; eval "$opt"', /eval runs/],
  ['v=$x.output; BASH_ALIASES[exit]=:; [[ $v =~ ^[0-9]+$ ]] || exit 1; echo $(( v ))', /v cannot be used in \$\(\( … \)\)/],
  ['exit() { :; }; v=$x.output; [[ $v =~ ^[0-9]+$ ]] || exit 1; echo $(( v ))', /v cannot be used in \$\(\( … \)\)/],
  ['((bash) ); echo "$ARGUMENTS"', /svc's bash parser cannot read line 1 col 1/],
  ['id=$(jq -r .id "$TRIGGER_PAYLOAD_FILE"); echo $(( id + 1 ))', /id cannot be used in \$\(\( … \)\)/],
  ['branch=$(jq -r .ref "$TRIGGER_PAYLOAD_FILE"); git checkout $branch', /line 1 col 60: branch is set by .*unquoted/],
  // the run's files, through a variable, a descriptor or a directory (node outputs and the payload are written there)
  ['x=$TRIGGER_PAYLOAD_FILE; bash "$x"', /bash "\$x", and runs a file of the run's artifacts or the payload/],
  ['cd "$ARTIFACTS_DIR" && bash x.out', /after cd into the run's artifacts/],
  ['bash 0<"$ARTIFACTS_DIR/x.out"', /as an argument and a redirection, bash as a redirection of descriptor 0/],
  ['cp "$TRIGGER_PAYLOAD_FILE" f; bash f', /bash runs f, a file this script writes/],
  // options of su, script, sg and gawk that take code
  ['su --command="$ARGUMENTS"', /su -c runs/],
  ['script -qc "$ARGUMENTS" /dev/null', /script -c runs/],
  ['sg root "$ARGUMENTS"', /sg runs/],
  ['gawk --assign x=1 "$ARGUMENTS"', /gawk runs/],
  ['gawk -i inplace "$ARGUMENTS" /dev/null', /gawk runs/],
];

/**
 * Forms a second, outside review found the policy's first version accepted, each proven with a real
 * bash: arrays taken for associative where they are not, number checks trusted beyond where they
 * hold, writes the parse did not see, attributes and commands computed from variables, a line
 * continuation inside `$((`, a builtin reading the value as its option, names with an index, files
 * written by programs, and code-variables set by read.
 */
const REVIEWED: readonly [string, string][] = [
  ['m[$ARGUMENTS]=1; declare -A m', 'cannot be used in an array index'],
  ['declare -A m; unset m; m["$ARGUMENTS"]=1', 'cannot be used in an array index'],
  ['f() { local -A m; }; m["$ARGUMENTS"]=1', 'cannot be used in an array index'],
  ['v=$ARGUMENTS; if false; then [[ $v =~ ^[0-9]+$ ]] || exit 1; else echo $(( v )); fi', 'v cannot be used in $(( … ))'],
  ['v=$ARGUMENTS; [[ $v =~ ^[0-9]+$ ]] || exit 1 & echo $(( v ))', 'v cannot be used in $(( … ))'],
  ['v=(1 "$ARGUMENTS"); [[ $v =~ ^[0-9]+$ ]] || exit 1; echo $(( v[1] ))', 'v cannot be used in'],
  ['v=1; [[ $v =~ ^[0-9]+$ ]] || exit 1; command read -r v <<< "$ARGUMENTS"; echo $(( v ))', 'v cannot be used in $(( … ))'],
  ["v=1; [[ $v =~ ^[0-9]+$ ]] || exit 1; eval 'v=$ARGUMENTS'; echo $(( v ))", 'v cannot be used in $(( … ))'],
  ['f=-i; declare $f v; v="$ARGUMENTS"', 'declare takes a variable name, and $f is not a literal one'],
  ['a=(); declare a="$ARGUMENTS"', 'a is an array, and a declaration re-reads a string assigned to one as a compound assignment'],
  ['read -r PS4 <<< "$ARGUMENTS"; set -x; true', 'sets PS4 from a value the script did not choose'],
  ['IFS= builtin read -r PS4 <<< "$x.output"; set -x; :', 'sets PS4 from a value the script did not choose'],
  ['cmd=eval; "$cmd" "$ARGUMENTS"', 'eval runs it as code'],
  ['c=-c; bash "$c" "$ARGUMENTS"', 'bash takes code through its options, and "$c" before it is computed'],
  ['v="$ARGUMENTS"; echo $(\\\n( v ))', 'a line continuation at line 1 col 22 joins an operator across lines'],
  ['printf "$ARGUMENTS" x', 'printf may read it as one of its options'],
  ['f() { printf $1 x; }; f "$ARGUMENTS"', 'printf may read it as one of its options'],
  ['echo "$x.output" >/dev/null; [ $SVC_OUTPUT_x ]', 'unquoted, bash splits it'],
  ["a=(1); unset 'a[$ARGUMENTS]'", '$ARGUMENTS holds a value from outside'],
  ['a=(1); v=$x.output; [[ -v a[v] ]]', 'v cannot be used in an array index'],
  ["declare 'a[$ARGUMENTS]=1'", "'a[$ARGUMENTS]=1' in declare"],
  ['echo "$ARGUMENTS" > a; mv a b; bash b', 'bash runs b, a file this script writes'],
  ['cp /dev/stdin f <<< "$ARGUMENTS"; bash f', 'bash runs f, a file this script writes'],
];

describe('the positive policy refuses a value from outside wherever bash does not treat it as data', () => {
  it.each(REVIEWED)('refuses %j, a form a review found accepted', (script, message) => {
    expect(bashErrors(script).join('\n')).toContain(message);
  });

  it('runs a hostile value in each of the reviewed forms when nothing is refused (the table is honest)', () => {
    for (const [script] of REVIEWED) {
      const ran = PAYLOADS.some((payload) => {
        hostile.run(renderUnchecked(script, payload), payload);
        return hostile.markers().length > 0;
      });
      expect(ran, script).toBe(true);
    }
  });

  it.each(REFUSED)('refuses %j', (script, message) => {
    expect(bashErrors(script).join('\n')).toContain(message);
    expect(() => renderBash(script, { x: '1' })).toThrow();
  });

  it('runs a hostile value in each of them when nothing is refused (the table is honest)', () => {
    for (const [script] of REFUSED) {
      const ran = PAYLOADS.some((payload) => {
        hostile.run(renderUnchecked(script, payload), payload);
        return hostile.markers().length > 0;
      });
      expect(ran, script).toBe(true);
    }
  });

  it.each(REFUSED_BY_PLACE)('refuses %j, saying where and why', (script, message) => {
    expect(bashErrors(script).join('\n')).toMatch(message);
  });
});

/** Safe forms the check used to refuse (issue 31's list and more), with what each prints for the value 7. */
const SAFE: readonly [string, string][] = [
  // code built from values the script chose
  ['tmp=$(mktemp); trap "rm -f $tmp" EXIT; printf %s "$ARGUMENTS" > "$tmp"; cat "$tmp"', '7'],
  ['version=1.2.3; echo V | sed "s/V/$version/"; echo "$x.output"', '1.2.3\n7\n'],
  ['cmd=(printf \'%s\\n\'); "${cmd[@]}" "$ARGUMENTS"', '7\n'],
  ['dir=/; sh -c "cd $dir && pwd"; echo "$x.output"', '/\n7\n'],
  // associative arrays: a key is a string, not arithmetic
  ['declare -A m; k=$x.output; m[$k]=1; echo "${!m[@]} ${m[$k]}"', '7 1\n'],
  // an indexed array's keys are numbers
  ['arr=(a b); for i in "${!arr[@]}"; do echo "${arr[i]}"; done; echo "$ARGUMENTS"', 'a\nb\n7\n'],
  // recognised checks: on the variable itself, anywhere after its writes, the sanitiser
  ['[[ $ARGUMENTS =~ ^[0-9]+$ ]] || exit 1; echo $(( ARGUMENTS * 2 ))', '14\n'],
  ['v=$x.output; echo hi; [[ $v =~ ^[0-9]+$ ]] || exit 1; echo $(( v + 1 ))', 'hi\n8\n'],
  ['n=${ARGUMENTS//[^0-9]/}; echo $(( n + 1 ))', '8\n'],
  ['v=$x.output; n=${#v}; echo $(( n + 1 ))', '2\n'],
  // values as data: arguments, assignments, here-documents and here-strings fed to programs
  ['v=$ARGUMENTS; cat <<EOF\n<$v>\nEOF', '<7>\n'],
  ['v=$x.output; json=$(jq -cn --arg v "$v" \'{v:$v}\'); printf \'%s\\n\' "$json"', '{"v":"7"}\n'],
  ['branch=$(printf %s "$ARGUMENTS"); echo "$branch"', '7\n'],
  ['v=$x.output; echo "${v^^}${v,,}${v#a}${v%b}${v/a/b}${v@Q}"', "77777'7'\n"],
  ['v=$x.output; [[ $v == *7* ]] && echo matched', 'matched\n'],
  ['v=$x.output; set -- "$v"; echo "$1"', '7\n'],
  // -- before a value: a program reads it as an operand, never an option
  ['git ls-remote -- "$x.output" 2>/dev/null; echo done', 'done\n'],
  // the check written as an if, a count from wc, a command the script set once to literal words
  ['n=$ARGUMENTS; if ! [[ $n =~ ^[0-9]+$ ]]; then echo bad; exit 1; fi; echo $(( n + 1 ))', '8\n'],
  ['n=$(printf \'%s\\n\' "$ARGUMENTS" | wc -l); echo $(( n + 1 ))', '2\n'],
  ['n=$x.output; [[ $n =~ ^[0-9]+$ ]] || exit 2; n=$(( n + 1 )); echo $(( n * 2 ))', '16\n'],
];

describe('safe forms validate, and run without running the value', () => {
  it.each(SAFE)('accepts %j', (script, expected) => {
    expect(bashErrors(script)).toEqual([]);
    expect(hostile.printsSafely(script)).toBe(expected);
  });

  it('accepts values the script chose in places a value from outside may not stand', () => {
    for (const script of [
      'host=example.com; ssh "$host" uptime; echo "$ARGUMENTS"',
      'source "$(dirname "$0")/lib.sh"; echo "$ARGUMENTS"',
      'git ls-remote "$ARGUMENTS"', // a quoted value given to a program: option injection is the sandbox's part
      'tar -tf "$x.output"',
      'perl -ne print "$x.output"',
    ]) {
      expect(bashErrors(script), script).toEqual([]);
    }
  });
});

describe('end to end: validation refuses, and a run of what it accepts runs no payload', () => {
  afterAll(() => cleanupAll());

  it('svc workflow validate names the place of a refused form; a run of safe forms with a hostile message completes and leaves no marker', async () => {
    const safe = SAFE.filter(([script]) => !script.includes('git ls-remote')).map(([script], k) => ({ id: `s${k}`, bash: script }));
    const project = await projectWithWorkflows([
      { name: 'safe', nodes: [{ id: 'x', bash: 'printf %s "$ARGUMENTS"' }, ...safe.map((node) => ({ ...node, depends_on: ['x'] }))] },
    ]);
    const refused = join(project, '.svc', 'workflows', 'refused.yaml');
    await writeFile(refused, 'name: refused\nnodes:\n  - id: b\n    bash: v=$ARGUMENTS; printf "$v" x\n');
    const validate = await runCli(['workflow', 'validate', refused], { cwd: project });
    expect(validate.code).toBe(1);
    expect(validate.stderr + validate.stdout).toMatch(/refused\.yaml:\d+:\d+.*printf may read it as one of its options/s);
    const server = await startServer();
    const benign = await waitForRun(server, await startRun(server, 'safe', { message: '7', cwd: project }));
    expect(benign.status, JSON.stringify(benign.nodes)).toBe('completed');
    // A hostile message: the checks in the scripts may end a node (a value that is no number), nothing runs it.
    for (const payload of ['a[$(touch pwned-index)]', '-v a[$(touch${IFS}pwned-test)]', '$(touch pwned-subst)']) {
      const run = await waitForRun(server, await startRun(server, 'safe', { message: payload, cwd: project }));
      expect(['completed', 'failed']).toContain(run.status);
      expect(readdirSync(project).filter((name) => name.startsWith('pwned'))).toEqual([]);
    }
  });
});
