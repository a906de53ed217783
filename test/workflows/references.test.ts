import { describe, expect, it } from 'vitest';
import { findBashOutputRefs, findOutputRefs, renderPrompt } from '../../src/workflows/references.js';

describe('findOutputRefs', () => {
  it('finds every $<id>.output with its offsets', () => {
    expect(findOutputRefs('a $plan.output b $my-node_2.output $plan.output')).toEqual([
      { id: 'plan', start: 2, end: 14 },
      { id: 'my-node_2', start: 17, end: 34 },
      { id: 'plan', start: 35, end: 47 },
    ]);
  });

  it('ignores near misses', () => {
    expect(findOutputRefs('$plan.outputs $plan.output_dir $1.output $plan.out plan.output ${plan}.output')).toEqual([]);
  });

  it('accepts a reference followed by punctuation', () => {
    expect(findOutputRefs('($plan.output). "$plan.output"').map((ref) => ref.id)).toEqual(['plan', 'plan']);
  });
});

describe('renderPrompt', () => {
  const vars = {
    ARGUMENTS: 'fix the bug',
    USER_MESSAGE: 'fix the bug',
    RUN_ID: 'run-1',
    WORKFLOW_NAME: 'fix',
    ARTIFACTS_DIR: '/tmp/a',
    WORKSPACE_DIR: '/w',
  };

  it('substitutes variables and outputs as plain text', () => {
    expect(
      renderPrompt(
        'Task: $ARGUMENTS ($USER_MESSAGE) run $RUN_ID of $WORKFLOW_NAME in $WORKSPACE_DIR, write to $ARTIFACTS_DIR/plan.md. Plan: $plan.output',
        vars,
        { plan: 'step 1' },
      ),
    ).toBe('Task: fix the bug (fix the bug) run run-1 of fix in /w, write to /tmp/a/plan.md. Plan: step 1');
  });

  it('matches names whole: $ARGUMENTS_X and $RUN_IDS stay', () => {
    expect(renderPrompt('$ARGUMENTS_X $RUN_IDS $ARGUMENTS.', vars, {})).toBe('$ARGUMENTS_X $RUN_IDS fix the bug.');
  });

  it('leaves variables that are not given, and names that are not prompt variables, alone', () => {
    expect(renderPrompt('$WEBHOOK_EVENT $HOME $PATH $TRIGGER_TYPE', { TRIGGER_TYPE: 'webhook' }, {})).toBe('$WEBHOOK_EVENT $HOME $PATH webhook');
  });

  it('substitutes the webhook variables when present', () => {
    const webhook = {
      TRIGGER_TYPE: 'webhook',
      TRIGGER_PAYLOAD: '{"ref":"main"}',
      WEBHOOK_EVENT: 'push',
      WEBHOOK_IDEMPOTENCY_KEY: 'd-1',
      WEBHOOK_RECEIVED_AT: '2025-01-01T00:00:00.000Z',
    };
    expect(renderPrompt('$TRIGGER_TYPE $WEBHOOK_EVENT $WEBHOOK_IDEMPOTENCY_KEY $WEBHOOK_RECEIVED_AT $TRIGGER_PAYLOAD', webhook, {})).toBe(
      'webhook push d-1 2025-01-01T00:00:00.000Z {"ref":"main"}',
    );
  });

  it('reads a node without output (skipped) as empty text', () => {
    expect(renderPrompt('[$lint.output]', vars, {})).toBe('[]');
  });

  it('does not expand what a substituted value contains', () => {
    const hostile = { ...vars, ARGUMENTS: 'use $RUN_ID and $secret.output and $$' };
    expect(renderPrompt('>$ARGUMENTS<', hostile, { secret: 'TOP SECRET' })).toBe('>use $RUN_ID and $secret.output and $$<');
    expect(renderPrompt('$a.output', vars, { a: '$ARGUMENTS $b.output', b: 'x' })).toBe('$ARGUMENTS $b.output');
  });

  it('does not treat replacement patterns in values specially', () => {
    expect(renderPrompt('$ARGUMENTS', { ARGUMENTS: "$& $' $` $1" }, {})).toBe("$& $' $` $1");
  });
});

describe('findBashOutputRefs: quoting context of each reference', () => {
  const contextOf = (script: string): string[] => findBashOutputRefs(script).map((ref) => ref.context);
  it.each([
    ['echo $a.output', ['word']],
    ['x=$a.output; echo "$x"', ['word']],
    ['echo "pre $a.output post"', ['double-quoted']],
    ["echo 'pre $a.output post'", ['single-quoted']],
    ['echo "it\'s" $a.output', ['word']],
    ['echo "\'$a.output\'"', ['double-quoted']],
    ['echo \\$a.output', ['escaped']],
    ['echo "\\$a.output"', ['escaped']],
    ['echo hi # uses $a.output\necho $a.output', ['comment', 'word']],
    ['echo a#$a.output', ['word']],
    ['echo $(cat $a.output)', ['word']],
    ['echo "$(printf %s $a.output)"', ['word']],
    ['echo "$(printf %s "$a.output")"', ['double-quoted']],
    ['cat <<EOF\n$a.output\nEOF\necho $a.output', ['heredoc', 'word']],
    ["cat <<-'EOF'\n\t$a.output\n\tEOF\necho $a.output", ['heredoc', 'word']],
    ['cat <<< $a.output', ['word']],
    ['echo `echo $a.output`', ['backtick']],
    ['echo "${x:-$a.output}"', ['parameter-expansion']],
    ["echo ${x:-'$a.output'}", ['parameter-expansion']],
    ['echo ${x:-$(echo $a.output)}', ['word']],
    ['echo $(( $a.output + 1 ))', ['arithmetic']],
    ['(( $a.output > 0 ))', ['arithmetic']],
    ['if (( $a.output )); then :; fi', ['arithmetic']],
    ['for (( i = 0; i < $a.output; i++ )); do :; done', ['arithmetic']],
    ['echo $[ $a.output + 1 ]', ['arithmetic']],
    ['a[$a.output]=1', ['arithmetic']],
    ['echo ${x[$a.output]} ${x:$a.output}', ['parameter-expansion', 'parameter-expansion']],
    ['echo a\\ #$a.output', ['word']],
    ['echo a\\ #`\n$a.output\n`', ['backtick']],
    ['echo a \\#$a.output # $a.output', ['word', 'comment']],
    ["echo $'\\n$a.output'", ['ansi-c-quoted']],
    ['echo "$(case x in a) echo $a.output;; esac)" $a.output', ['word', 'word']],
    ['echo "$(case x in a) echo hi;; esac) $a.output"', ['double-quoted']],
  ])('%j', (script, contexts) => {
    expect(contextOf(script)).toEqual(contexts);
  });
});
