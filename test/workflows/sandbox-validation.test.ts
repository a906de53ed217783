// `sandbox:` in a workflow and on an agent node (docs/workflows.md, "Sandbox"): host names, `*.`
// wildcards and `IP:port` literals for the network, absolute or `~/` paths to read and write;
// validated with the rest of the workflow, each problem at its place, and merged onto each agent node.
import { describe, expect, it } from 'vitest';
import { validateWorkflowSource } from '../../src/workflows/validate.js';
import { isSandboxHost } from '../../src/workflows/index.js';

const yaml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const errorsOf = (source: string) => {
  const result = validateWorkflowSource(source);
  return result.ok ? [] : result.errors;
};

describe('sandbox: in a workflow', () => {
  it("adds the node's lists to the workflow's, without repeats, on agent nodes only", () => {
    const result = validateWorkflowSource(
      yaml(
        'name: demo',
        'description: d',
        'sandbox: { network: [registry.npmjs.org, "*.github.com"], read: [~/.cache/pip] }',
        'nodes:',
        '  - { id: plain, prompt: hi }',
        '  - { id: own, prompt: hi, sandbox: { network: ["127.0.0.1:5432", registry.npmjs.org], write: [/var/cache/build] } }',
        '  - { id: script, bash: echo }',
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [plain, own, script] = result.workflow.nodes;
    expect(plain!.sandbox).toEqual({ network: ['registry.npmjs.org', '*.github.com'], read: ['~/.cache/pip'], write: [] });
    expect(own!.sandbox).toEqual({
      network: ['registry.npmjs.org', '*.github.com', '127.0.0.1:5432'],
      read: ['~/.cache/pip'],
      write: ['/var/cache/build'],
    });
    expect(script!.sandbox).toBeUndefined();
  });

  it('leaves a node without any sandbox: key with none', () => {
    const result = validateWorkflowSource(yaml('name: demo', 'description: d', 'nodes:', '  - { id: a, prompt: hi }'));
    expect(result.ok && result.workflow.nodes[0]!.sandbox).toBeUndefined();
  });

  it('reports bad hosts, relative paths, unknown keys, and sandbox: on a node without an agent', () => {
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
        '  - { id: script, bash: echo, sandbox: { network: [a.com] } }',
      ),
    );
    expect(errors).toHaveLength(6);
    expect(errors[0]).toMatch(/nodes\[0\]\.sandbox\.network\[0\]: invalid sandbox host 'https:\/\/example.com'/);
    expect(errors[1]).toMatch(/nodes\[1\]\.sandbox\.network\[0\]: invalid sandbox host '\*'/);
    expect(errors[2]).toMatch(/nodes\[2\]\.sandbox\.network\[0\]: invalid sandbox host '127.0.0.1'/);
    expect(errors[3]).toMatch(/nodes\[3\]\.sandbox\.read\[0\]: invalid sandbox path 'cache': an absolute path or one starting with '~\/'/);
    expect(errors[4]).toMatch(/nodes\[4\]\.sandbox: unknown key 'netwrk'/);
    expect(errors[5]).toMatch(/nodes\[5\]\.sandbox: sandbox applies to the agent of a prompt or command node; a bash node has none/);
  });

  it('knows a host from what is not one', () => {
    for (const host of ['registry.npmjs.org', '*.github.com', 'localhost', '127.0.0.1:8080', '10.0.0.5:5432']) expect(isSandboxHost(host), host).toBe(true);
    for (const host of ['', '*', '*.', 'a..b', 'http://a.com', 'a.com/path', '127.0.0.1', '300.0.0.1:80', '127.0.0.1:0', '127.0.0.1:70000', 'a.com:80'])
      expect(isSandboxHost(host), host).toBe(false);
  });
});
