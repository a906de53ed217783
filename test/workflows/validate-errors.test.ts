// One test per class of validation error: the exact message and its line:col in the YAML.
import { describe, expect, it } from 'vitest';
import { validateWorkflowSource } from '../../src/workflows/validate.js';

/** YAML from lines, so that line numbers in the expectations can be read off the array. */
const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const HEAD = ['name: demo', 'description: d', 'nodes:'];

function errorsOf(input: unknown, filename?: string): string[] {
  const result = validateWorkflowSource(input, filename === undefined ? {} : { filename });
  if (result.ok) throw new Error('expected the workflow to be invalid');
  return result.errors;
}

describe('YAML-level errors', () => {
  it('reports a syntax error alone (the structure is unknown)', () => {
    expect(errorsOf(yaml('name: demo', 'nodes: [plan', 'description: d'))).toEqual([
      '3:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  it('reports tabs used as indentation', () => {
    expect(errorsOf(yaml('name: demo', 'nodes:', '\t- id: a'))).toEqual(['3:1: invalid YAML: Tabs are not allowed as indentation']);
  });

  it('reports a duplicate key at the second occurrence, naming the mapping', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    prompt: a', '    prompt: b'))).toEqual(["6:5: nodes[0]: duplicate key 'prompt'"]);
  });

  it('reports a document that is not a mapping', () => {
    expect(errorsOf(yaml('- just', '- a list'))).toEqual(['1:1: a workflow must be a mapping with name, description and nodes (got a list)']);
    expect(errorsOf('')).toEqual(['a workflow must be a mapping with name, description and nodes (got nothing (null))']);
  });
});

describe('schema errors', () => {
  it('reports missing required fields, grouped per mapping', () => {
    expect(errorsOf(yaml('nodes:', '  - prompt: hi'))).toEqual([
      "1:1: missing required fields 'name', 'description'",
      "2:5: nodes[0]: missing required field 'id'",
    ]);
  });

  it('reports ill-typed fields with what was found', () => {
    expect(errorsOf(yaml('name: demo', 'description: 42', 'nodes:', '  - id: plan', '    prompt: [a, b]', '    depends_on: plan'))).toEqual([
      '2:14: description: expected a string, got a whole number (42)',
      '5:13: nodes[0].prompt: expected a string, got a list',
      "6:17: nodes[0].depends_on: expected a list, got a string ('plan')",
    ]);
  });

  it('reports unknown top-level keys with a suggestion', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    prompt: hi', 'descripton: x', 'trigers: {}'))).toEqual([
      "6:1: unknown key 'descripton' (did you mean 'description'?)",
      "7:1: unknown key 'trigers' (did you mean 'triggers'?)",
    ]);
  });

  it('reports unknown node, retry and approval keys at the key itself', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: plan',
          '    prompt: hi',
          '    dependson: [x]',
          '    retry: { max_attempts: 2, dealy: 5s }',
          '  - id: gate',
          '    approval: { mesage: ok }',
          '    depends_on: [plan]',
          '    colour: red',
        ),
      ),
    ).toEqual(
      [
        "6:5: nodes[0]: unknown key 'dependson' (did you mean 'depends_on'?)",
        "7:31: nodes[0].retry: unknown key 'dealy' (did you mean 'delay'?)",
        "9:17: nodes[1].approval: unknown key 'mesage' (did you mean 'message'?)",
        "9:15: nodes[1].approval: missing required field 'message'",
        "11:5: nodes[1]: unknown key 'colour'",
      ].sort(byPosition),
    );
  });

  it('suggests approval: { message: … } for an approval written as a string (issue 32)', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: gate', '    approval: "ship?"'))).toEqual([
      `5:15: nodes[0].approval: expected a mapping, got a string ('ship?'): write approval: { message: "ship?" }`,
    ]);
    // Any other wrong type is told as before.
    expect(errorsOf(yaml(...HEAD, '  - id: gate', '    approval: 3'))).toEqual(['5:15: nodes[0].approval: expected a mapping, got a whole number (3)']);
  });

  it('reports a malformed workflow name', () => {
    expect(errorsOf(yaml('name: Fix It', 'description: d', 'nodes:', '  - id: plan', '    prompt: hi'))).toEqual([
      "1:7: name: invalid workflow name 'Fix It': lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters",
    ]);
  });

  it('reports malformed node ids', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: 1st', '    prompt: hi', '  - id: "a b"', '    prompt: hi'))).toEqual([
      "4:9: nodes[0].id: invalid node id '1st': start with a letter or '_', then letters, digits, '_' or '-'",
      "6:9: nodes[1].id: invalid node id 'a b': start with a letter or '_', then letters, digits, '_' or '-'",
    ]);
  });

  it('reports an empty node list', () => {
    expect(errorsOf(yaml('name: demo', 'description: d', 'nodes: []'))).toEqual(['3:8: nodes: a workflow needs at least one node']);
  });

  it('reports bad durations: unparsable, zero timeout, too long, wrong type, empty', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: a',
          '    bash: t',
          '    timeout: 5 minutes',
          '  - id: b',
          '    bash: t',
          '    timeout: 0',
          '  - id: c',
          '    bash: t',
          '    timeout: 1000h',
          '    retry: { max_attempts: 2, delay: soon }',
          '  - id: d',
          '    bash: t',
          '    timeout: true',
          '  - id: e',
          '    bash: t',
          '    timeout:',
        ),
      ),
    ).toEqual([
      "6:14: nodes[0].timeout: invalid duration '5 minutes' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      '9:14: nodes[1].timeout: a timeout must be longer than 0',
      "12:14: nodes[2].timeout: '1000h' is too long (at most 596h)",
      "13:38: nodes[2].retry.delay: invalid duration 'soon' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      '16:14: nodes[3].timeout: expected a duration (seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h), got true',
      '19:5: nodes[4].timeout: expected a duration (seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h), got nothing (null)',
    ]);
  });

  it('reports retry bounds', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: a',
          '    bash: t',
          '    retry: { max_attempts: 0 }',
          '  - id: b',
          '    bash: t',
          '    retry: { max_attempts: 11 }',
          '  - id: c',
          '    bash: t',
          '    retry: { max_attempts: 1.5 }',
          '  - id: d',
          '    bash: t',
          '    retry: { delay: 1s }',
        ),
      ),
    ).toEqual([
      '6:28: nodes[0].retry.max_attempts: must be from 1 to 10 (the total number of attempts)',
      '9:28: nodes[1].retry.max_attempts: must be from 1 to 10 (the total number of attempts)',
      '12:28: nodes[2].retry.max_attempts: expected a whole number, got a number (1.5)',
      "15:12: nodes[3].retry: missing required field 'max_attempts'",
    ]);
  });

  it('reports values outside an enumeration with a suggestion, and an empty model', () => {
    // An assistant a letter from claude is no error: it may be an acp assistant of the server's (`svc workflow validate` warns).
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    bash: t', '    trigger_rule: all_sucess', '    assistant: claud', '    model: ""'))).toEqual([
      "6:19: nodes[0].trigger_rule: 'all_sucess' is not one of all_success, one_success, all_done, none_failed_min_one_success (did you mean 'all_success'?)",
      '8:12: nodes[0].model: must not be empty',
    ]);
  });

  it('reports an unsafe command name', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    command: ../../etc/passwd'))).toEqual([
      "5:14: nodes[0].command: invalid command name '../../etc/passwd': the stem of a .md file in a commands folder, e.g. 'review'",
    ]);
  });
});

describe('node rules', () => {
  it('reports a node without an action', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    depends_on: []'))).toEqual([
      '4:5: nodes[0]: a node needs exactly one of prompt, bash, approval, command, wait (found: none)',
    ]);
  });

  it('reports a node with several actions', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    prompt: a', '    bash: b'))).toEqual([
      '4:5: nodes[0]: a node needs exactly one of prompt, bash, approval, command, wait (found: prompt, bash)',
    ]);
  });

  it('reports permissions that are not read, edit or full, and permissions on a node without an agent', () => {
    expect(
      errorsOf(
        yaml(
          'name: demo',
          'description: d',
          'permissions: write',
          'nodes:',
          '  - id: a',
          '    prompt: p',
          '    permissions: ful',
          '  - id: b',
          '    bash: t',
          '    permissions: read',
          '  - id: c',
          '    approval: { message: ok }',
          '    permissions: edit',
        ),
      ),
    ).toEqual([
      "3:14: permissions: 'write' is not one of read, edit, full",
      "7:18: nodes[0].permissions: 'ful' is not one of read, edit, full (did you mean 'full'?)",
      '10:18: nodes[1].permissions: permissions applies to the agent of a prompt or command node; a bash node has none (remove it)',
      '13:18: nodes[2].permissions: permissions applies to the agent of a prompt or command node; an approval node has none (remove it)',
    ]);
  });

  it('reports bad idle_timeout values, and idle_timeout on a gate (which runs nothing to watch)', () => {
    expect(
      errorsOf(
        yaml(
          'name: demo',
          'description: d',
          'idle_timeout: 0',
          'nodes:',
          '  - id: a',
          '    prompt: p',
          '    idle_timeout: 10 minutes',
          '  - id: b',
          '    bash: t',
          '    idle_timeout: -1',
          '  - id: c',
          '    bash: t',
          '    idle_timeout: 1000h',
          '  - id: d',
          '    approval: { message: ok }',
          '    idle_timeout: 1m',
          '  - id: e',
          '    prompt: p',
          '    idle_tiemout: 1m',
        ),
      ),
    ).toEqual([
      '3:15: idle_timeout: an idle_timeout must be longer than 0',
      "7:19: nodes[0].idle_timeout: invalid duration '10 minutes' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      "10:19: nodes[1].idle_timeout: invalid duration '-1' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      "13:19: nodes[2].idle_timeout: '1000h' is too long (at most 596h)",
      '16:19: nodes[3].idle_timeout: idle_timeout applies to a node that runs a process (prompt, command, bash); an approval node has none (remove it)',
      "19:5: nodes[4]: unknown key 'idle_tiemout' (did you mean 'idle_timeout'?)",
    ]);
  });

  it('reports env.allow entries that are not variable names, and env.inherit: true on an agent node', () => {
    expect(
      errorsOf(
        yaml(
          'name: demo',
          'description: d',
          'env: { allow: [GOOD_NAME, "1BAD"] }',
          'nodes:',
          '  - id: a',
          '    prompt: p',
          '    env: { inherit: true, allow: [A_*] }',
          '  - id: b',
          '    bash: t',
          '    env: { inherit: false, alow: [X] }',
        ),
      ),
    ).toEqual([
      "3:27: env.allow[1]: invalid variable name '1BAD': letters, digits and '_', not starting with a digit; a trailing '*' allows every name with that prefix",
      '7:21: nodes[0].env.inherit: env.inherit: true applies to bash nodes; an agent gets the base set and the names in env.allow (list the ones it needs)',
      "10:28: nodes[1].env: unknown key 'alow' (did you mean 'allow'?)",
    ]);
  });

  it('reports a duplicate node id', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    prompt: a', '  - id: plan', '    bash: b'))).toEqual([
      "6:9: nodes[1].id: duplicate node id 'plan' (first used by nodes[0])",
    ]);
  });
});

describe('dependency rules', () => {
  it('reports unknown dependencies with a suggestion, at the list entry', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: test', '    bash: t', '  - id: ship', '    bash: s', '    depends_on: [tset, nothing]'))).toEqual([
      "8:18: nodes[1].depends_on: unknown node 'tset' (did you mean 'test'?)",
      "8:24: nodes[1].depends_on: unknown node 'nothing'",
    ]);
  });

  it('reports a self-dependency', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    bash: t', '    depends_on: [a]'))).toEqual(["6:18: nodes[0].depends_on: node 'a' cannot depend on itself"]);
  });

  it('reports a cycle naming its nodes in order', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: a',
          '    bash: t',
          '    depends_on: [c]',
          '  - id: b',
          '    bash: t',
          '    depends_on: [a]',
          '  - id: c',
          '    bash: t',
          '    depends_on: [b]',
        ),
      ),
    ).toEqual(['6:18: nodes[0].depends_on: cycle: a -> c -> b -> a']);
  });

  it('reports each of several cycles', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - { id: a, bash: t, depends_on: [b] }',
          '  - { id: b, bash: t, depends_on: [a] }',
          '  - { id: c, bash: t, depends_on: [d] }',
          '  - { id: d, bash: t, depends_on: [c] }',
        ),
      ),
    ).toEqual(['4:36: nodes[0].depends_on: cycle: a -> b -> a', '6:36: nodes[2].depends_on: cycle: c -> d -> c']);
  });
});

describe('when rules', () => {
  it('reports a when that does not parse, with the column inside the expression', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    bash: t', '  - id: b', '    bash: t', '    depends_on: [a]', '    when: "$a.output = \'x\'"'))).toEqual([
      "9:11: nodes[1].when: unexpected '=' at column 11 (use '==' to compare)",
    ]);
  });

  it('reports a when naming an unknown node', () => {
    expect(
      errorsOf(yaml(...HEAD, '  - id: test', '    bash: t', '  - id: b', '    bash: t', '    depends_on: [test]', "    when: $tset.output == 'x'")),
    ).toEqual(["9:11: nodes[1].when: $tset.output refers to unknown node 'tset' (did you mean 'test'?)"]);
  });

  it('reports a when reading a node that is not upstream', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: a',
          '    bash: t',
          '  - id: lint',
          '    bash: t',
          '  - id: b',
          '    bash: t',
          '    depends_on: [a]',
          "    when: $lint.output == 'x'",
        ),
      ),
    ).toEqual([
      "11:11: nodes[2].when: $lint.output refers to node 'lint', which is not upstream of 'b': its output would not exist yet (add 'lint' to depends_on)",
    ]);
  });
});

describe('$id.output reference rules', () => {
  it('reports a reference to an unknown node', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: test', '    bash: t', '  - id: b', '    prompt: "see $tset.output"', '    depends_on: [test]'))).toEqual([
      "7:13: nodes[1].prompt: $tset.output refers to unknown node 'tset' (did you mean 'test'?)",
    ]);
  });

  it('reports a reference to a node that runs later or in parallel', () => {
    expect(
      errorsOf(yaml(...HEAD, '  - id: a', '    bash: t', '  - id: b', '    prompt: "see $c.output"', '  - id: c', '    bash: t', '    depends_on: [b]')),
    ).toEqual(["7:13: nodes[1].prompt: $c.output refers to node 'c', which is not upstream of 'b': its output would not exist yet (add 'c' to depends_on)"]);
  });

  it("reports a reference to the node's own output", () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    approval: { message: "ok? $a.output" }'))).toEqual([
      "5:26: nodes[0].approval.message: $a.output is this node's own output, which does not exist yet when it runs",
    ]);
  });

  it('suggests ${VAR} for what looks like a shell variable in bash', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    bash: cp $FILE.output /tmp'))).toEqual([
      "5:11: nodes[0].bash: $FILE.output refers to unknown node 'FILE' (for a shell variable, write ${FILE}.output)",
    ]);
  });

  it('ignores references in bash comments and escaped ones', () => {
    expect(validateWorkflowSource(yaml(...HEAD, '  - id: a', '    bash: |', '      # uses $nothing.output', '      echo \\$nothing.output')).ok).toBe(true);
  });

  it('refuses bash references where no substitution is safe', () => {
    expect(
      errorsOf(
        yaml(
          ...HEAD,
          '  - id: a',
          '    bash: t',
          '  - id: b',
          '    depends_on: [a]',
          '    bash: |',
          '      cat <<EOF',
          '      $a.output',
          '      EOF',
          '      echo `echo $a.output` "${x:-$a.output}"',
        ),
      ),
    ).toEqual([
      "8:11: nodes[1].bash: $a.output cannot be substituted safely inside a here-document; pipe it instead: printf '%s\\n' $a.output | …",
      '8:11: nodes[1].bash: $a.output cannot be substituted safely inside backticks; use $(…) instead',
      '8:11: nodes[1].bash: $a.output cannot be substituted safely inside ${…}; assign it to a variable first: v=$a.output',
    ]);
  });
});

describe('webhook trigger rules', () => {
  it('reports malformed slugs and secret_env (without echoing the value), bounds, filter values, duplicates and missing fields', () => {
    const errors = errorsOf(
      yaml(
        ...HEAD,
        '  - id: a',
        '    bash: t',
        'triggers:',
        '  webhook:',
        '    - event: push',
        '      slug: On-Push',
        '      secret_env: sk-live-abcdef123',
        '      idempotency_key: delivery_id',
        '    - { event: push, slug: on-push, secret_env: S, idempotency_key: id, dedupe_window_sec: 0, filter: { ref: [a] } }',
        '    - { event: "", slug: on-push, secret_env: S, idempotency_key: id }',
        '    - { slug: other }',
      ),
    );
    expect(errors).toEqual([
      "9:13: triggers.webhook[0].slug: invalid slug 'On-Push': lowercase letters, digits and '-', starting with a letter or digit, at most 64 characters",
      '10:19: triggers.webhook[0].secret_env: must be the NAME of the environment variable holding the secret (A-Z, 0-9, _; not starting with a digit), never the secret itself',
      '12:92: triggers.webhook[1].dedupe_window_sec: must be at least 1 (second)',
      '12:110: triggers.webhook[1].filter.ref: expected a string, number or boolean, got a list',
      '13:16: triggers.webhook[2].event: must not be empty',
      "13:26: triggers.webhook[2].slug: duplicate slug 'on-push' (also used by triggers.webhook[1])",
      "14:7: triggers.webhook[3]: missing required fields 'event', 'secret_env', 'idempotency_key'",
    ]);
    expect(errors.join('\n')).not.toContain('abcdef');
  });

  it('reports unknown trigger kinds and keys', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: a', '    bash: t', 'triggers:', '  webhooks: []', '  cron: []'))).toEqual([
      "7:3: triggers: unknown key 'webhooks' (did you mean 'webhook'?)",
      "8:3: triggers: unknown key 'cron'",
    ]);
  });
});

describe('how errors name their place', () => {
  it('prefixes file:line:col when a filename is given', () => {
    expect(errorsOf(yaml(...HEAD, '  - id: plan', '    prompt: a', '    bash: b'), 'demo.yaml')).toEqual([
      'demo.yaml:4:5: nodes[0]: a node needs exactly one of prompt, bash, approval, command, wait (found: prompt, bash)',
    ]);
  });

  it('has no line:col for an object, and prefixes the filename alone when given', () => {
    const definition = { name: 'demo', description: 'd', nodes: [{ id: 'a', bash: 't', depends_on: ['b'] }] };
    expect(errorsOf(definition)).toEqual(["nodes[0].depends_on: unknown node 'b'"]);
    expect(errorsOf(definition, 'api')).toEqual(["api: nodes[0].depends_on: unknown node 'b'"]);
  });

  it('points into aliased content at the anchor', () => {
    expect(errorsOf(yaml(...HEAD, '  - &n { id: a, bash: t, timeout: nope }', '  - *n'))).toEqual([
      "4:14: nodes[1].id: duplicate node id 'a' (first used by nodes[0])",
      "4:35: nodes[0].timeout: invalid duration 'nope' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      "4:35: nodes[1].timeout: invalid duration 'nope' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
    ]);
  });
});

/** Orders `line:col: …` strings as validation does (by position). */
function byPosition(a: string, b: string): number {
  const at = (s: string): number[] => (/^(\d+):(\d+):/.exec(s) ?? []).slice(1).map(Number);
  const [la = 0, ca = 0] = at(a);
  const [lb = 0, cb = 0] = at(b);
  return la - lb || ca - cb;
}
