// `sandbox:` in a workflow, on an agent node and on a bash node (docs/workflows.md, "Sandbox"): host
// names, `*.` wildcards and `IP:port` literals for the network, absolute or `~/` paths to read and
// write, and a bash node's `true`/`false`; validated with the rest of the workflow, each problem at
// its place, and merged onto each node that can be sandboxed.
import { describe, expect, it } from 'vitest';
import { validateWorkflowSource } from '../../src/workflows/validate.js';
import { isSandboxHost } from '../../src/workflows/index.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const errorsOf = (source: string) => {
  const result = validateWorkflowSource(source);
  return result.ok ? [] : result.errors;
};

describe('sandbox: in a workflow', () => {
  it("adds the node's lists to the workflow's, without repeats, on agent and bash nodes", () => {
    const result = validateWorkflowSource(
      yaml(
        'name: demo',
        'description: d',
        'sandbox: { network: [registry.npmjs.org, "*.github.com"], read: [~/.cache/pip] }',
        'nodes:',
        '  - { id: plain, prompt: hi }',
        '  - { id: own, prompt: hi, sandbox: { network: ["127.0.0.1:5432", registry.npmjs.org], write: [/var/cache/build] } }',
        '  - { id: script, bash: echo }',
        '  - { id: gate, approval: { message: ok? } }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [plain, own, script, gate] = result.workflow.nodes;
    expect(plain!.sandbox).toEqual({ network: ['registry.npmjs.org', '*.github.com'], read: ['~/.cache/pip'], write: [] });
    expect(own!.sandbox).toEqual({
      network: ['registry.npmjs.org', '*.github.com', '127.0.0.1:5432'],
      read: ['~/.cache/pip'],
      write: ['/var/cache/build'],
    });
    // A bash node gets the workflow's widening for when it is sandboxed; it asks for nothing itself.
    expect(script!.sandbox).toEqual({ network: ['registry.npmjs.org', '*.github.com'], read: ['~/.cache/pip'], write: [] });
    expect(script!.bashSandbox).toBeUndefined();
    expect(gate!.sandbox).toBeUndefined();
  });

  it('a bash node asks for a sandbox with true or a widening, and declines one with false', () => {
    const result = validateWorkflowSource(
      yaml(
        'name: demo',
        'description: d',
        'nodes:',
        '  - { id: yes, bash: echo, sandbox: true }',
        '  - { id: wide, bash: echo, sandbox: { network: [registry.npmjs.org] } }',
        '  - { id: no, bash: echo, sandbox: false }',
        '  - { id: quiet, bash: echo }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflow.nodes.map((node) => [node.id, node.bashSandbox, node.sandbox?.network])).toEqual([
      ['yes', true, undefined],
      ['wide', true, ['registry.npmjs.org']],
      ['no', false, undefined],
      ['quiet', undefined, undefined],
    ]);
  });

  it('leaves a node without any sandbox: key with none', () => {
    const result = validateWorkflowSource(yaml('name: demo', 'description: d', 'nodes:', '  - { id: a, prompt: hi }'));
    expect(result.ok && result.workflow.nodes[0]!.sandbox).toBeUndefined();
  });

  it('reports bad hosts, relative paths, unknown keys, sandbox: on a node that runs nothing, and true/false on an agent node', () => {
    const errors = errorsOf(
      yaml(
        'name: demo',
        'description: d',
        'nodes:',
        '  - { id: url, prompt: hi, sandbox: { network: ["https://example.com"] } }',
        '  - { id: star, prompt: hi, sandbox: { network: ["*"] } }',
        '  - { id: bareip, prompt: hi, sandbox: { network: ["127.0.0.1"] } }',
        '  - { id: rel, prompt: hi, sandbox: { read: [cache] } }',
        '  - { id: typo, prompt: hi, sandbox: { netwrk: [a.com] } }',
        '  - { id: gate, approval: { message: ok? }, sandbox: { network: [a.com] } }',
        '  - { id: agent, prompt: hi, sandbox: true }',
        '  - { id: number, bash: echo, sandbox: 3 }',
      ),
    );
    expect(errors).toHaveLength(8);
    expect(errors[0]).toMatch(/nodes\[0\]\.sandbox\.network\[0\]: invalid sandbox host 'https:\/\/example.com'/);
    expect(errors[1]).toMatch(/nodes\[1\]\.sandbox\.network\[0\]: invalid sandbox host '\*'/);
    expect(errors[2]).toMatch(/nodes\[2\]\.sandbox\.network\[0\]: invalid sandbox host '127.0.0.1'/);
    expect(errors[3]).toMatch(/nodes\[3\]\.sandbox\.read\[0\]: invalid sandbox path 'cache': an absolute path or one starting with '~\/'/);
    expect(errors[4]).toMatch(/nodes\[4\]\.sandbox: unknown key 'netwrk'/);
    expect(errors[5]).toMatch(
      /nodes\[5\]\.sandbox: sandbox applies to a bash node or the agent of a prompt or command node; an approval node runs nothing to confine/,
    );
    expect(errors[6]).toMatch(/nodes\[6\]\.sandbox: sandbox: true is for a bash node; an agent's sandbox follows its permissions/);
    expect(errors[7]).toMatch(/nodes\[7\]\.sandbox: expected true, false or \{ network, read, write \}, got a whole number \(3\)/);
  });

  it('knows a host from what is not one', () => {
    for (const host of ['registry.npmjs.org', '*.github.com', 'localhost', '127.0.0.1:8080', '10.0.0.5:5432']) expect(isSandboxHost(host), host).toBe(true);
    for (const host of ['', '*', '*.', 'a..b', 'http://a.com', 'a.com/path', '127.0.0.1', '300.0.0.1:80', '127.0.0.1:0', '127.0.0.1:70000', 'a.com:80'])
      expect(isSandboxHost(host), host).toBe(false);
  });
});
