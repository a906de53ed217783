// The wait node (docs/workflows.md, "Waiting"): `wait: { for }` or `wait: { event, timeout? }`,
// validated with the rest of a workflow — each problem at its place — and normalized to
// milliseconds; a signalling webhook trigger names its event and its run field together.
import { describe, expect, it } from 'vitest';
import { validateWorkflowSource } from '../../src/workflows/validate.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const HEAD = ['name: demo', 'description: d', 'nodes:'];
const errorsOf = (source: string) => {
  const result = validateWorkflowSource(source);
  return result.ok ? [] : result.errors;
};

describe('wait nodes', () => {
  it('normalizes a wait for a duration and a wait for an event with and without a timeout', () => {
    const result = validateWorkflowSource(
      yaml(
        ...HEAD,
        '  - { id: nap, wait: { for: 2h } }',
        '  - { id: ci, wait: { event: build_finished, timeout: 30m } }',
        '  - { id: person, wait: { event: ok } }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflow.nodes.map((node) => node.action)).toEqual([
      { kind: 'wait', forMs: 7_200_000 },
      { kind: 'wait', event: 'build_finished', timeoutMs: 1_800_000 },
      { kind: 'wait', event: 'ok' },
    ]);
    expect(result.workflow.nodes.every((node) => node.permissions === undefined)).toBe(true);
  });

  it('reports a wait with both or neither of for and event, a timeout on a timed wait, bad durations and names, idle_timeout and unknown keys', () => {
    const errors = errorsOf(
      yaml(
        ...HEAD,
        '  - { id: both, wait: { for: 1s, event: x } }',
        '  - { id: neither, wait: {} }',
        '  - { id: timed, wait: { for: 1s, timeout: 5s } }',
        '  - { id: zero, wait: { for: 0 } }',
        '  - { id: named, wait: { event: "no spaces" } }',
        '  - { id: idle, wait: { for: 1s }, idle_timeout: 5s }',
        '  - { id: typo, wait: { fro: 1s } }',
        '  - { id: two, wait: { for: 1s }, bash: echo }',
        '  - { id: limited, wait: { event: x }, timeout: 5m, retry: { max_attempts: 2 } }',
      ),
    );
    expect(errors).toEqual([
      '4:23: nodes[0].wait: a wait needs exactly one of for, event (found: for, event)',
      '5:26: nodes[1].wait: a wait needs exactly one of for, event (found: none)',
      '6:44: nodes[2].wait.timeout: timeout applies to a wait for an event; a wait for a duration ends by itself (remove it)',
      '7:30: nodes[3].wait.for: a wait must be longer than 0',
      "8:33: nodes[4].wait.event: invalid event name 'no spaces': letters, digits, '.', '_' and '-', at most 64 characters",
      '9:50: nodes[5].idle_timeout: idle_timeout applies to a node that runs a process (prompt, command, bash); a wait node has none (remove it)',
      '10:23: nodes[6].wait: a wait needs exactly one of for, event (found: none)',
      "10:25: nodes[6].wait: unknown key 'fro' (did you mean 'for'?)",
      '11:5: nodes[7]: a node needs exactly one of prompt, bash, approval, command, wait (found: bash, wait)',
      '12:49: nodes[8].timeout: timeout applies to a node that runs a process; an event wait takes its timeout inside wait: { event, timeout } (remove it)',
      '12:60: nodes[8].retry: retry applies to a node that runs a process; a wait has no attempts to repeat (remove it)',
    ]);
  });

  it('a signalling webhook trigger needs both signal and run_field', () => {
    const trigger = (extra: string) =>
      yaml(
        ...HEAD,
        '  - { id: a, wait: { event: built } }',
        'triggers:',
        '  webhook:',
        `    - { event: build, slug: ci, secret_env: CI_SECRET, idempotency_key: id${extra} }`,
      );
    expect(errorsOf(trigger(', run_field: run'))).toEqual([
      '7:88: triggers.webhook[0].run_field: run_field needs signal: a signalling trigger names its event (signal) and the payload field holding the run id (run_field)',
    ]);
    const result = validateWorkflowSource(trigger(', signal: built, run_field: run'));
    expect(result.ok && result.workflow.triggers.webhook[0]!.signal).toEqual({ event: 'built', runField: 'run' });
  });
});
