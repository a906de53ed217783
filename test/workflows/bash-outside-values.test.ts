// Values from outside in bash scripts (issue 19, section 1): the forms in which bash runs a value
// as code are refused by validation, and every form validation accepts runs nothing, whatever the
// value. Both halves are checked against a real `bash -c`: that a refused form really runs the
// hostile value (so the table is honest), and that an accepted one does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBash } from '../../src/workflows/references.js';
import { bashErrors } from '../helpers/bash-node.js';
import { hostileDir, PAYLOADS, renderUnchecked } from '../helpers/hostile-bash.js';
import { loadBashParser } from '../../src/workflows/shell/bash-parser.js';

// The check made whole, as before a script runs: with the bash parser's reading.
beforeAll(() => loadBashParser());

const hostile = hostileDir('svc-outside-values-');
const { markers } = hostile;
const bash = hostile.run;
afterAll(() => hostile.remove());

/**
 * Forms in which bash runs an outside value as code, with the part of the message that refuses
 * them. `$x.output` is a node's output; the upper-case names are what svc sets from a run
 * message or a webhook delivery.
 */
const REFUSED: readonly [string, string][] = [
  // arithmetic, in every form: a[$(…)] in the value runs
  ['(( $x.output > 0 ))', 'cannot be used in arithmetic'],
  ['echo $[ $x.output + 1 ]', 'cannot be used in arithmetic'],
  // a name set with its option attached (`-vn`, `-ran`) is a write like any other (issue 31)
  ['printf -vn %s "$x.output"; echo $(( n + 1 ))', 'n cannot be used in $(( … ))'],
  ['read -ran <<< "$x.output"; echo $(( n + 1 ))', 'n cannot be used in $(( … ))'],
  // bash's own integer variables evaluate what is assigned to them (issue 31)
  ['RANDOM=$x.output', 'the value of an integer variable'],
  // constructs that run words svc does not follow (issue 31)
  ['shopt -s expand_aliases\nalias e=eval\ne "$x.output"', 'shopt -s expand_aliases makes aliases commands svc does not see'],
  ['mapfile -C eval -c 1 <<< "$x.output"', 'mapfile -C eval hands each line it reads to a command that runs its words'],
  ['xargs env <<< "$x.output"', 'xargs env runs the words xargs reads as a command'],
  ['v=$x.output; time -p $v', 'the command name $v must be literal text'],
  ['f() { local -a arr="$1"; }; f "$x.output"', 'local -a/-A reads the value of arr="$1" as a compound assignment'],
  ['v=$x.output; arr[ $v ]=1', 'svc reads this script differently from bash at line 1 col 14 (arr[ $v ]=1)'],
  ['v=$x.output; jobs -x $v', 'the command name $v must be literal text'],
  // an unquoted operand of [ splits into operators: -v a[$(…)] (issue 31)
  ['v=$x.output; [ $v == yes ] && echo yes', '[ reads the unquoted $v as words of its own'],
  // brace expansion makes a command name svc does not see: `eval eval …` (issue 31)
  ['{eval,eval} "$x.output"', 'as bash would'],
  // a program file that is the standard input carrying the value (issue 31)
  ['printf \'x\\n\' > in.txt; sed -f /dev/stdin in.txt <<< "$x.output"', 'sed -f reads its program from'],
  ['printf "%s" "$x.output" | awk -f - /dev/null', 'awk -f reads its program from a pipe'],
  ['v=$x.output; OPTIND=$v', 'the value of an integer variable'],
  ['echo $(( $x.output + 1 ))', 'cannot be used in arithmetic'],
  ['for (( i = 0; i < $x.output; i++ )); do :; done', 'cannot be used in arithmetic'],
  ['let "n = $x.output"', 'cannot be used in let'],
  ['declare -i n=$x.output', 'cannot be used in the value of an integer variable'],
  ['f() { local -i n=$x.output; }; f', 'cannot be used in the value of an integer variable'],
  ['[[ $x.output -eq 1 ]]', 'cannot be used in [[ … -eq … ]]'],
  ['[[ 1 -lt "$x.output" ]]', 'cannot be used in [[ … -eq … ]]'],
  ['a=(1 2); a[$x.output]=3', 'cannot be used in arithmetic'],
  ['a=([$x.output]=1)', 'cannot be used in arithmetic'],
  // the advice validation used to give: a copy is evaluated just the same
  ['v=$x.output; echo $(( v + 1 ))', 'v cannot be used in $(( … ))'],
  ['v=$x.output; (( v > 0 ))', 'v cannot be used in (( … ))'],
  ['v=$x.output; let "w = v"', 'v cannot be used in let'],
  ['v=$x.output; [[ v -eq 1 ]]', 'v cannot be used in [[ … -eq … ]]'],
  ['v=$x.output; a=(1 2); echo ${a[v]}', 'v cannot be used in an array index'],
  ['v=$x.output; s=abc; echo ${s:v}', 'v cannot be used in the offset or length'],
  ['read -r v <<< $x.output; (( v ))', 'v cannot be used in (( … )) in a script that takes values from outside: it is set by read v'],
  ['declare -n r=v; r=$x.output; (( v ))', 'nameref'],
  ['declare -i n; read n <<< $x.output', "n is an integer variable (declare -i, or one of bash's own), so read n evaluates"],
  // the variables svc sets from outside, with and without $
  ['(( WEBHOOK_IDEMPOTENCY_KEY > 0 ))', '$WEBHOOK_IDEMPOTENCY_KEY holds a value from outside and cannot be used in (( … ))'],
  ['[[ "$ARGUMENTS" -eq 1 ]]', '$ARGUMENTS holds a value from outside and cannot be used in [[ … -eq … ]]'],
  ['echo $(( USER_MESSAGE ))', '$USER_MESSAGE holds a value from outside'],
  ['n=$ARGUMENTS; (( n ))', 'n cannot be used in (( … ))'],
  // a nested shell, eval, a remote shell, another language's program
  ['bash -c "echo $x.output"', 'bash -c runs'],
  ['sh -c "echo $ARGUMENTS"', 'sh -c runs'],
  ['eval $x.output', 'eval runs'],
  ['eval "echo $ARGUMENTS"', 'eval runs'],
  ['v=$x.output; eval "$v"', 'eval runs'],
  ['timeout 5 bash -c "$ARGUMENTS"', 'bash -c runs'],
  ["bash -c '(( $1 ))' _ $x.output", 'in the code given to bash -c'],
  ["FOO=$x.output bash -c '(( FOO ))'", 'in the code given to bash -c'],
  ['trap "$ARGUMENTS" EXIT', 'trap runs'],
  ['python3 -c "$ARGUMENTS"', 'python3 -c runs'],
  ['printf %s "$ARGUMENTS" | bash', 'bash reads its program from a pipe'],
  ['cat <<EOF | bash\n$ARGUMENTS\nEOF', 'bash reads its program from a pipe'],
  ['echo "$ARGUMENTS" | xargs -I{} sh -c "echo {}"', '{} in echo {} is replaced by a value'],
  // a value as a command or a file to run
  ['$x.output', 'the command name $x.output must be literal'],
  ['v=$ARGUMENTS; $v', 'the command name $v must be literal'],
  ['source "$ARGUMENTS"', 'source runs or loads the file'],
  ['BASH_ENV=$x.output bash -c :', 'BASH_ENV runs or loads the file'],
  // a value as a variable name: bash evaluates an index inside it
  ['printf -v "$ARGUMENTS" x', 'printf -v takes a variable name'],
  ['read "$ARGUMENTS" <<< 1', 'read takes a variable name'],
  ['test -v "$ARGUMENTS"', 'test -v takes a variable name'],
  ['[[ -v $x.output ]]', '[[ -v ]] takes a variable name'],
  ['declare "$ARGUMENTS=1"', 'declare takes a variable name'],
  ['a=(1); unset "a[$x.output]"', 'cannot be used in an array index'],
  ['v=$ARGUMENTS; echo ${!v}', '${!v} uses the value of v as a variable name'],
  ['v=$ARGUMENTS; echo "${v@P}"', '${v@P} expands the value like a prompt'],
  ['PS4=$ARGUMENTS; set -x; :', 'PS4 runs'],
  ['f() { local -n r=$1; r=$x.output; }; f n; (( n ))', 'local -n takes a variable name'],
  // code read from standard input, joined from words, or written to a file and run
  ['source /dev/stdin <<< "$ARGUMENTS"', 'source reads its program from "$ARGUMENTS"'],
  ['exec <<< "$ARGUMENTS"; bash', 'bash reads its program from its standard input'],
  ["eval '((' ARGUMENTS '))'", '$ARGUMENTS holds a value from outside and cannot be used in (( … ))'],
  ['echo "$ARGUMENTS" > run.sh; bash run.sh', 'bash runs run.sh, a file this script writes'],
  ['printf %s $x.output | tee run.sh; chmod +x run.sh; ./run.sh', './run.sh runs ./run.sh, a file this script writes'],
];

describe('constructs refused whatever the payload', () => {
  it("set -k, and running a file of the run's artifacts (node outputs and the payload live there)", () => {
    expect(bashErrors('set -k; echo "$x.output"').join('\n')).toContain('set -k makes every NAME=value argument an environment assignment');
    expect(bashErrors('echo "$x.output"; source "$ARTIFACTS_DIR/x.out"').join('\n')).toContain("a file of the run's artifacts");
    expect(bashErrors('echo "$x.output"; bash "$TRIGGER_PAYLOAD_FILE"').join('\n')).toContain("a file of the run's artifacts");
  });
});

describe('forms where bash runs a value from outside', () => {
  it.each(REFUSED)('refuses %j', (script, message) => {
    expect(bashErrors(script).join('\n')).toContain(message);
    expect(() => renderBash(script, { x: '1' })).toThrow();
  });

  it('runs a hostile value in each of them when nothing is refused (the table is honest)', () => {
    for (const [script] of REFUSED) {
      const ran = PAYLOADS.some((payload) => {
        bash(renderUnchecked(script, payload), payload);
        return markers().length > 0;
      });
      expect(ran, script).toBe(true);
    }
  });
});

/** Forms validation accepts, with what each prints for the value 7. */
const ACCEPTED: readonly [string, string][] = [
  ['echo "$x.output" $x.output; printf "%s" "$ARGUMENTS"', '7 7\n7'],
  ['v=$x.output\n[[ $v =~ ^[0-9]+$ ]] || exit 1\necho $(( v + 1 ))', '8\n'],
  // printf %d converts without arithmetic: what it sets is a number, whatever the value (issue 31)
  ['v=$x.output; printf -v n \'%d\' "$v" || exit 1; echo $(( n + 1 ))', '8\n'],
  ['printf -vn %d "$x.output"; echo $(( n * 2 ))', '14\n'],
  // what a pure program prints from clean arguments brings in nothing from outside (issue 31)
  ['for i in $(seq 1 3); do echo $(( i * 2 )); done; echo "$x.output"', '2\n4\n6\n7\n'],
  ['tmp=$(mktemp); printf %s "$x.output" > "$tmp"; cat "$tmp"; rm -f "$tmp"', '7'],
  ['v=$x.output; [[ $v =~ ^[0-9]+$ ]] || exit 1; (( v > 0 )) && echo positive', 'positive\n'],
  ['k=$WEBHOOK_IDEMPOTENCY_KEY\n[[ "$k" =~ ^-?[0-9]+$ ]] || { echo "not a number" >&2; exit 3; }\nlet "k = k * 2"; echo $k', '14\n'],
  ['read -r n <<< "$ARGUMENTS"\n[[ $n =~ ^[0-9]+$ ]] || exit 1\nfor (( i = 0; i < n; i++ )); do printf .; done', '.......'],
  ['for n in $x.output; do [[ $n =~ ^[0-9]+$ ]] || exit 1; a[n]=$n; done; echo "${a[7]}"', '7\n'],
  ['f() { local v=$1\n[[ $v =~ ^[0-9]+$ ]] || return 1\necho $(( v * 2 )); }; f "$ARGUMENTS" || exit 1', '14\n'],
  ['[ "$ARGUMENTS" -gt 1 ] && echo more', 'more\n'],
  ['n=${#ARGUMENTS}; (( n == 1 )) && echo one', 'one\n'],
  ['count=0; while read -r line; do count=$((count + 1)); done <<< "$ARGUMENTS"; echo $count', '1\n'],
  ['bash -c \'echo "$1"\' _ "$x.output"', '7\n'],
  ['python3 -c \'import sys; print(sys.argv[1])\' "$ARGUMENTS"', '7\n'],
  ['v=$x.output awk \'BEGIN { print ENVIRON["v"] }\'', '7\n'],
  ['tmp=$(mktemp); trap \'rm -f "$tmp"\' EXIT; printf %s "$ARGUMENTS" > "$tmp"; cat "$tmp"', '7'],
  ['eval \'echo "$ARGUMENTS"\'', '7\n'],
  ['case "$x.output" in *[!0-9]*) exit 1;; esac; echo "${ARGUMENTS:0:1}"', '7\n'],
];

describe('forms validation accepts', () => {
  it.each(ACCEPTED)('accepts %j and runs nothing a value brings', (script, expected) => {
    expect(bashErrors(script)).toEqual([]);
    expect(hostile.printsSafely(script)).toBe(expected);
  });

  it('a number check counts after every write of the value, anchored, ending the script', () => {
    const use = '(( v > 0 ))';
    const refused = [
      `v=$x.output\n[[ $v =~ ^[0-9]+ ]] || exit 1\n${use}`, // not anchored at the end
      `v=$x.output\n[[ $v =~ [0-9]+$ ]] || exit 1\n${use}`, // not anchored at the start
      `v=$x.output\n[[ $v =~ "^[0-9]+$" ]] || exit 1\n${use}`, // quoted: a substring match
      `v=$x.output\n[[ $v =~ ^[0-9]|x$ ]] || exit 1\n${use}`, // an alternative anchored on one side only
      `v=$x.output\n[[ $v =~ ^[0-9a-z]+$ ]] || exit 1\n${use}`, // letters are names in arithmetic
      `v=$x.output\n[[ $v =~ ^[0-9]+$ ]] || echo bad\n${use}`, // does not end the script
      `v=$x.output\n[[ $v =~ ^[0-9]+$ ]] || return 1\n${use}`, // return leaves a global set
      `[[ $v =~ ^[0-9]+$ ]] || exit 1\nv=$x.output\n${use}`, // checked before it is set
      `f() { v=$x.output; }\n[[ $v =~ ^[0-9]+$ ]] || exit 1\nf\n${use}`, // set in a function, which may run after the check
      `if true; then [[ $v =~ ^[0-9]+$ ]] || exit 1; fi\nv=$x.output\n${use}`, // checked in another block
      `exit() { :; }\nv=$x.output\n[[ $v =~ ^[0-9]+$ ]] || exit 1\n${use}`, // exit redefined
      `v=$x.output\n[[ $v =~ ^[0-9]+$ ]] || exit 1\nv=$x.output\n${use}`, // set again, unchecked
    ];
    for (const script of refused) {
      expect(bashErrors(script).join('\n'), script).toContain('v cannot be used in (( … ))');
      for (const payload of PAYLOADS) bash(renderUnchecked(script, payload), payload);
      // Each of these really lets a hostile value through to the arithmetic (or would, with exit redefined).
    }
    markers();
    expect(bashErrors(`v=$x.output\n[[ $v =~ ^-?[0-9]+$ ]] || exit 1\n${use}`)).toEqual([]);
    // Not on the next line: what matters is that every write of v comes before the check.
    expect(bashErrors(`v=$x.output\necho hi\n[[ $v =~ ^[0-9]+$ ]] || exit 1\n${use}`)).toEqual([]);
    // A pipeline's assignment never reaches the shell: the check sees an empty v and ends the script.
    expect(bashErrors(`v=$x.output | cat\n[[ $v =~ ^[0-9]+$ ]] || exit 1\n${use}`)).toEqual([]);
    // On an outside variable itself, no copy needed.
    expect(bashErrors(`[[ $ARGUMENTS =~ ^[0-9]+$ ]] || exit 1\necho $(( ARGUMENTS * 2 ))`)).toEqual([]);
    expect(bashErrors(`v=$x.output\n[[ "\${v}" =~ ^(0|[1-9][0-9]*)$ ]] || exit 2\n${use}`)).toEqual([]);
  });

  it('does not check a script that takes no value from outside', () => {
    expect(bashErrors('n=$(wc -l < file); (( n > 1 )); eval "$(ssh-agent -s)"; bash -c "$CMD"')).toEqual([]);
  });

  it('checks a script that names an outside variable anywhere, even in literal code for another shell', () => {
    expect(bashErrors("bash -c 'echo $(( ARGUMENTS ))'").join('\n')).toContain('in the code given to bash -c: $ARGUMENTS holds a value from outside');
    expect(bashErrors("eval 'echo $(( TRIGGER_PAYLOAD ))'").join('\n')).toContain('$TRIGGER_PAYLOAD holds a value from outside');
    // $ARTIFACTS_DIR is svc's path, but its files hold every node's output and the payload.
    expect(bashErrors('(( $(cat "$ARTIFACTS_DIR/x.out") > 0 ))').join('\n')).toContain('cannot be used in (( … )) in a script that takes values from outside');
  });
});

describe('the probe: every form in every placement, with every hostile value', () => {
  // Templates of the outside probe (issue 19): V is where the value goes.
  const TEMPLATES = [
    '(( V ))',
    'echo $(( V ))',
    'echo $[ V ]',
    'let V',
    'declare -i n=V',
    '[[ V -eq 1 ]]',
    'test V -eq 1',
    'a=(1 2); echo ${a[V]}',
    'a[V]=1',
    'x=abc; echo ${x:V}',
    'for ((i=V;i<1;i++)); do :; done',
    'eval V',
    'bash -c V',
    "bash -c 'echo V'",
    'printf -v V x',
    'read V <<< 1',
    'unset V',
    'declare V=1',
    'echo ${!V}',
    '[[ -v V ]]',
    'V',
    'exec V',
    'env V',
    'xargs V < /dev/null',
    'trap V EXIT',
    'source V',
    'PS4=V; set -x; :',
    'echo V | bash',
    'bash <<< V',
    'mapfile -C V -c 1 <<< a',
    'compgen -W V',
    'declare -n r=V; (( r ))',
    'x=V; y=$x; (( y ))',
    'x=V; echo "${x@P}"',
    'echo $(( $(echo V) ))',
    'echo `echo V`',
    'awk V </dev/null',
    'python3 -c V',
    'sed V </dev/null',
    'x=V; eval "$x"',
    'x=V; $x',
    'x=V; source "$x"',
    'for x in V; do (( x )); done',
    'while read -r x; do (( x )); done <<< V',
    'x=V; : ${y:=$x}; (( y ))',
    'set -- V; (( $1 ))',
    'f() { (( $1 )); }; f V',
    "FOO=V bash -c '(( FOO ))'",
    'x=V; alias a="$x"; shopt -s expand_aliases\na',
    'echo V | xargs -I{} sh -c "echo {}"',
    '[[ V =~ (.*) ]]; (( BASH_REMATCH[1] ))',
    'echo a\\ #`\necho V\n`',
    "echo a\\ #'\n(( V ))\n'",
    'cat <<EOF\n$(( V ))\nEOF',
    'x=V\n[[ $x =~ ^[0-9]+$ ]] || exit 1\n(( x ))',
    'source /dev/stdin <<< V',
    'exec <<< V; bash',
    "eval '((' V '))'",
    'f() { local -n r=$1; r=V; }; f n; (( n ))',
    'echo V > run.sh; bash run.sh',
    'printf %s V | tee run.sh; source ./run.sh',
    'x=V; declare -n r=x; (( r ))',
  ];
  const PLACEMENTS = ['$x.output', '"$x.output"', "'$x.output'", '"$ARGUMENTS"', 'ARGUMENTS', '${WEBHOOK_EVENT}'];

  it('runs nothing in any form validation accepts', () => {
    let accepted = 0;
    for (const template of TEMPLATES) {
      for (const placement of PLACEMENTS) {
        const script = template.replaceAll('V', placement);
        if (bashErrors(script).length > 0) continue;
        accepted++;
        for (const payload of PAYLOADS) {
          bash(renderBash(script, { x: payload }), payload);
          expect(markers(), `${JSON.stringify(script)} with ${payload}`).toEqual([]);
        }
      }
    }
    expect(accepted).toBeGreaterThan(40); // the probe reaches the accepted forms, not only refusals
  });
});
