import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { topologicalOrder, validateWorkflowSource } from '../../src/workflows/index.js';
import type { WorkflowDefinition } from '../../src/workflows/index.js';
import { closestMatch } from '../../src/workflows/did-you-mean.js';

const FULL = `
name: fix-and-test
description: Plan a fix, apply it, test it, ask before shipping
assistant: codex
model: gpt-5
permissions: read
idle_timeout: 5m
env: { allow: [GH_TOKEN] }
nodes:
  - id: plan
    prompt: "Plan a fix for: $ARGUMENTS"
    assistant: claude
    model: opus
  - id: implement
    command: implement
    depends_on: [plan]
    timeout: 30m
    idle_timeout: 90
    permissions: edit
  - id: test
    bash: npm test -- $plan.output
    depends_on: [implement]
    timeout: 90
    retry: { max_attempts: 2, delay: 1.5s }
    trigger_rule: all_done
    env: { inherit: false, allow: [NPM_TOKEN, GH_TOKEN] }
  - id: gate
    approval: { message: "Tests say: $test.output — ship it?" }
    depends_on: [test]
    when: "$test.output != 'skip'"
triggers:
  webhook:
    - event: push
      slug: on-push
      secret_env: PUSH_SECRET
      idempotency_key: delivery_id
      dedupe_window_sec: 60
      filter: { ref: refs/heads/main, forced: false, size: 3 }
    - { event: issue, slug: on-issue, secret_env: ISSUE_SECRET, idempotency_key: id }
`;

function valid(input: unknown): WorkflowDefinition {
  const result = validateWorkflowSource(input);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.workflow;
}

describe('a valid workflow', () => {
  it('normalizes every field', () => {
    const workflow = valid(FULL);
    expect(workflow).toEqual({
      name: 'fix-and-test',
      description: 'Plan a fix, apply it, test it, ask before shipping',
      assistant: 'codex',
      model: 'gpt-5',
      commit: true,
      permissions: 'read',
      idleTimeoutMs: 300_000,
      nodes: [
        {
          id: 'plan',
          action: { kind: 'prompt', prompt: 'Plan a fix for: $ARGUMENTS' },
          dependsOn: [],
          when: undefined,
          whenSource: undefined,
          triggerRule: 'all_success',
          timeoutMs: 600_000,
          idleTimeoutMs: 300_000,
          retry: { maxAttempts: 1, delayMs: 0 },
          assistant: 'claude',
          model: 'opus',
          permissions: 'read',
          envAllow: ['GH_TOKEN'],
          envInherit: false,
        },
        {
          id: 'implement',
          action: { kind: 'command', command: 'implement' },
          dependsOn: ['plan'],
          when: undefined,
          whenSource: undefined,
          triggerRule: 'all_success',
          timeoutMs: 1_800_000,
          idleTimeoutMs: 90_000,
          retry: { maxAttempts: 1, delayMs: 0 },
          assistant: 'codex',
          model: 'gpt-5',
          permissions: 'edit',
          envAllow: ['GH_TOKEN'],
          envInherit: false,
        },
        {
          id: 'test',
          action: { kind: 'bash', bash: 'npm test -- $plan.output' },
          dependsOn: ['implement'],
          when: undefined,
          whenSource: undefined,
          triggerRule: 'all_done',
          timeoutMs: 90_000,
          // The workflow's idle_timeout is for agents: a bash node is watched only when it says so.
          idleTimeoutMs: undefined,
          retry: { maxAttempts: 2, delayMs: 1_500 },
          assistant: 'codex',
          model: 'gpt-5',
          envAllow: ['GH_TOKEN', 'NPM_TOKEN'],
          envInherit: false,
        },
        {
          id: 'gate',
          action: { kind: 'approval', message: 'Tests say: $test.output — ship it?' },
          dependsOn: ['test'],
          when: { kind: 'notEquals', left: { kind: 'ref', node: 'test' }, right: { kind: 'string', value: 'skip' } },
          whenSource: "$test.output != 'skip'",
          triggerRule: 'all_success',
          timeoutMs: 600_000,
          retry: { maxAttempts: 1, delayMs: 0 },
          assistant: 'codex',
          model: 'gpt-5',
          envAllow: ['GH_TOKEN'],
          envInherit: false,
        },
      ],
      triggers: {
        webhook: [
          {
            event: 'push',
            slug: 'on-push',
            secretEnv: 'PUSH_SECRET',
            idempotencyKey: 'delivery_id',
            dedupeWindowSec: 60,
            filter: { ref: 'refs/heads/main', forced: false, size: 3 },
          },
          { event: 'issue', slug: 'on-issue', secretEnv: 'ISSUE_SECRET', idempotencyKey: 'id', dedupeWindowSec: 3600, filter: {} },
        ],
      },
    });
  });

  it('applies defaults to a minimal workflow', () => {
    const workflow = valid({ name: 'min', description: '', nodes: [{ id: 'only', bash: 'true' }] });
    expect(workflow.assistant).toBeUndefined();
    expect(workflow.triggers).toEqual({ webhook: [] });
    expect(workflow.nodes[0]).toMatchObject({
      dependsOn: [],
      when: undefined,
      triggerRule: 'all_success',
      timeoutMs: 600_000,
      retry: { maxAttempts: 1, delayMs: 0 },
      assistant: undefined,
      model: undefined,
      envAllow: [],
      envInherit: true,
    });
  });

  it('commits per node unless `commit: false`, and says so when `commit` is no boolean', () => {
    const base = { name: 'c', description: '', nodes: [{ id: 'only', bash: 'true' }] };
    expect(valid(base).commit).toBe(true);
    expect(valid({ ...base, commit: false }).commit).toBe(false);
    const result = validateWorkflowSource('name: c\ndescription: d\ncommit: "no"\nnodes: [{ id: a, bash: "true" }]\n', { filename: 'c.yaml' });
    expect(!result.ok && result.errors).toEqual(["c.yaml:3:9: commit: expected true or false, got a string ('no')"]);
  });

  it('gives agent nodes permissions edit unless the node or the workflow says otherwise, and bash and approval nodes none', () => {
    const nodes = (permissions?: string) =>
      valid({
        name: 'perms',
        description: '',
        ...(permissions ? { permissions } : {}),
        nodes: [
          { id: 'ask', prompt: 'hi' },
          { id: 'run', command: 'review' },
          { id: 'own', prompt: 'hi', permissions: 'full' },
          { id: 'sh', bash: 'true' },
          { id: 'gate', approval: { message: 'ok?' } },
        ],
      }).nodes.map((node) => [node.id, node.permissions]);
    expect(nodes()).toEqual([
      ['ask', 'edit'],
      ['run', 'edit'],
      ['own', 'full'],
      ['sh', undefined],
      ['gate', undefined],
    ]);
    expect(nodes('read')).toEqual([
      ['ask', 'read'],
      ['run', 'read'],
      ['own', 'full'],
      ['sh', undefined],
      ['gate', undefined],
    ]);
  });

  it("takes a node's idle_timeout, else the workflow's for agent nodes only; none is left to the server (agents) or off (bash)", () => {
    const nodes = (idle?: string) =>
      valid({
        name: 'idle',
        description: '',
        ...(idle ? { idle_timeout: idle } : {}),
        nodes: [
          { id: 'ask', prompt: 'hi' },
          { id: 'run', command: 'review' },
          { id: 'own', prompt: 'hi', idle_timeout: '30s' },
          { id: 'sh', bash: 'true' },
          { id: 'watched', bash: 'true', idle_timeout: 1.5 },
          { id: 'gate', approval: { message: 'ok?' } },
        ],
      }).nodes.map((node) => [node.id, node.idleTimeoutMs]);
    expect(nodes()).toEqual([
      ['ask', undefined],
      ['run', undefined],
      ['own', 30_000],
      ['sh', undefined],
      ['watched', 1_500],
      ['gate', undefined],
    ]);
    expect(nodes('2m')).toEqual([
      ['ask', 120_000],
      ['run', 120_000],
      ['own', 30_000],
      ['sh', undefined],
      ['watched', 1_500],
      ['gate', undefined],
    ]);
  });

  it('returns the raw definition as validated', () => {
    const result = validateWorkflowSource(FULL);
    expect(result.ok && result.raw).toEqual(parse(FULL));
  });

  it('gives the same result for YAML text and for the parsed object', () => {
    expect(validateWorkflowSource(parse(FULL))).toEqual(validateWorkflowSource(FULL));
  });

  it('drops repeated dependencies', () => {
    const workflow = valid({
      name: 'w',
      description: 'd',
      nodes: [
        { id: 'a', bash: 't' },
        { id: 'b', bash: 't', depends_on: ['a', 'a'] },
      ],
    });
    expect(workflow.nodes[1]?.dependsOn).toEqual(['a']);
  });

  it('accepts references to any upstream node, not only direct dependencies', () => {
    const workflow = valid({
      name: 'w',
      description: 'd',
      nodes: [
        { id: 'a', bash: 't' },
        { id: 'b', bash: 't', depends_on: ['a'] },
        { id: 'c', prompt: 'from a: $a.output', depends_on: ['b'], when: '$a.output' },
      ],
    });
    // c names a (two steps up) in its prompt and its condition, and still depends on b alone.
    expect(workflow.nodes[2]).toMatchObject({
      id: 'c',
      action: { kind: 'prompt', prompt: 'from a: $a.output' },
      dependsOn: ['b'],
      when: { kind: 'ref', node: 'a' },
      whenSource: '$a.output',
    });
  });

  it('orders a valid workflow for execution', () => {
    const workflow = valid({
      name: 'w',
      description: 'd',
      nodes: [
        { id: 'ship', bash: 't', depends_on: ['test', 'lint'] },
        { id: 'test', bash: 't' },
        { id: 'lint', bash: 't' },
      ],
    });
    expect(topologicalOrder(workflow.nodes).map((node) => node.id)).toEqual(['test', 'lint', 'ship']);
  });
});

describe('errors', () => {
  it('are all reported in one pass, in source order', () => {
    const source = [
      'name: Bad Name', //                                        1
      'description: d', //                                        2
      'colour: red', //                                           3
      'nodes:', //                                                4
      '  - id: plan', //                                          5
      '    prompt: "use $tset.output"', //                        6
      '    bash: ls', //                                          7
      '    timeout: forever', //                                  8
      '  - id: test', //                                          9
      '    bash: t', //                                          10
      '    depends_on: [plan, ghost, test]', //                  11
      '    retry: { max_attempts: 99 }', //                      12
      '    when: "$plan.output ="', //                           13
      '  - id: plan', //                                         14
      '    approval: { message: ok }', //                        15
      'triggers:', //                                           16
      '  webhook:', //                                          17
      '    - { event: e, slug: s, secret_env: lower, idempotency_key: k }', // 18
      '    - { event: e, slug: s, secret_env: S, idempotency_key: k }', //     19
    ].join('\n');
    const result = validateWorkflowSource(source, { filename: 'bad.yaml' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      "bad.yaml:1:7: name: invalid workflow name 'Bad Name': lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters",
      "bad.yaml:3:1: unknown key 'colour'",
      'bad.yaml:5:5: nodes[0]: a node needs exactly one of prompt, bash, approval, command, wait (found: prompt, bash)',
      "bad.yaml:6:13: nodes[0].prompt: $tset.output refers to unknown node 'tset' (did you mean 'test'?)",
      "bad.yaml:8:14: nodes[0].timeout: invalid duration 'forever' (use seconds as a number, or a string such as 500ms, 30s, 1.5s, 10m, 2h)",
      "bad.yaml:11:24: nodes[1].depends_on: unknown node 'ghost'",
      "bad.yaml:11:31: nodes[1].depends_on: node 'test' cannot depend on itself",
      'bad.yaml:12:28: nodes[1].retry.max_attempts: must be from 1 to 10 (the total number of attempts)',
      "bad.yaml:13:11: nodes[1].when: unexpected '=' at column 14 (use '==' to compare)",
      "bad.yaml:14:9: nodes[2].id: duplicate node id 'plan' (first used by nodes[0])",
      'bad.yaml:18:40: triggers.webhook[0].secret_env: must be the NAME of the environment variable holding the secret (A-Z, 0-9, _; not starting with a digit), never the secret itself',
      "bad.yaml:19:25: triggers.webhook[1].slug: duplicate slug 's' (also used by triggers.webhook[0])",
    ]);
  });

  it('never throw, whatever the input', () => {
    for (const input of [undefined, null, 42, true, [], {}, 'a: [', '{', ':', '- - -', { nodes: 'x' }, { nodes: [null, 1, 'x', []] }]) {
      const result = validateWorkflowSource(input);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.length).toBeGreaterThan(0);
    }
  });

  it('survive an alias bomb', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    const result = validateWorkflowSource(bomb);
    expect(!result.ok && result.errors[0]).toMatch(/^1:1: invalid YAML: /);
  });
});

describe('a 500-node chain', () => {
  it('is valid (each node reads the previous one)', () => {
    const lines = ['name: chain', 'description: 500 nodes', 'nodes:', '  - id: n0', '    bash: echo 0'];
    for (let i = 1; i < 500; i++) {
      lines.push(`  - id: n${i}`, `    prompt: "continue from $n${i - 1}.output"`, `    depends_on: [n${i - 1}]`, `    when: "$n${i - 1}.output != 'stop'"`);
    }
    const result = validateWorkflowSource(lines.join('\n'));
    expect(result.ok).toBe(true);
    expect(result.ok && result.workflow.nodes.length).toBe(500);
    expect(result.ok && topologicalOrder(result.workflow.nodes).at(-1)?.id).toBe('n499');
  });
});

describe('closestMatch', () => {
  it.each([
    ['tset', ['test', 'plan'], 'test'],
    ['depends-on', ['depends_on', 'description'], 'depends_on'],
    ['Prompt', ['prompt'], 'prompt'],
    ['b', ['a'], undefined],
    ['zzzzzz', ['prompt'], undefined],
  ] as const)('%s → %s', (input, candidates, expected) => {
    expect(closestMatch(input, candidates)).toBe(expected);
  });
});
