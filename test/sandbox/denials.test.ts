// What an agent's sandbox refused, read from what its tool calls printed (src/sandbox/denials.ts):
// the words the real CLIs print (measured; test/agents-real/sandbox.test.ts sees them live).
import { describe, expect, it } from 'vitest';
import { sandboxDenials } from '../../src/sandbox/denials.js';
import type { SandboxPolicy } from '../../src/sandbox/index.js';

const sandbox: SandboxPolicy = {
  write: ['/svc/worktrees/r1', '/svc/tmp/a'],
  denyRead: ['/home/u/.ssh', '/svc'],
  allowRead: ['/svc/worktrees/r1', '/svc/tmp/a'],
  network: [],
};
const read = (text: string, tool = 'Bash') => sandboxDenials(text, tool, sandbox, '/svc/worktrees/r1', '/home/u');

describe('sandbox refusals', () => {
  it("Claude Code's <sandbox_violations>, once however many times the result repeats it", () => {
    const text =
      'Connection blocked by network allowlist\n<sandbox_violations>\ndeny network-outbound 127.0.0.1:43047 (host is not on the allow list)\n</sandbox_violations>\n' +
      '<sandbox_violations>\ndeny network-outbound 127.0.0.1:43047 (host is not on the allow list)\n</sandbox_violations>';
    expect(read(text)).toEqual([{ kind: 'net', target: '127.0.0.1:43047', tool: 'Bash' }]);
  });

  it("Codex's blocked host, with the port its proxy names", () => {
    const text =
      '{"status":"blocked","host":"127.0.0.1","reason":"not_allowed_local","decision":"deny","source":"baseline_policy","protocol":"http","port":40143,"message":"…"}rc=0\n\nNetwork access to "127.0.0.1" was blocked: local/private network addresses are blocked by the sandbox policy.';
    expect(read(text, 'exec')).toEqual([{ kind: 'net', target: '127.0.0.1:40143', tool: 'exec' }]);
    expect(read('Network access to "registry.npmjs.org" was blocked: domain is not on the allowlist', 'exec')).toEqual([
      { kind: 'net', target: 'registry.npmjs.org', tool: 'exec' },
    ]);
  });

  it('a read refused under a denied path, a write outside the writable ones; ordinary errors elsewhere are not refusals', () => {
    expect(read('cat: /home/u/.ssh/id_test: No such file or directory')).toEqual([{ kind: 'fs', target: '/home/u/.ssh/id_test', tool: 'Bash' }]);
    expect(read('cat: /home/u/.ssh/id_test: Permission denied')).toEqual([{ kind: 'fs', target: '/home/u/.ssh/id_test', tool: 'Bash' }]);
    expect(read("touch: cannot touch '/home/u/outside': Read-only file system")).toEqual([{ kind: 'fs', target: '/home/u/outside', tool: 'Bash' }]);
    expect(read('cat: ~/.ssh/id_rsa: No such file or directory')).toEqual([{ kind: 'fs', target: '/home/u/.ssh/id_rsa', tool: 'Bash' }]);
    // Its own run's worktree is readable: a missing file there is just missing.
    expect(read('cat: /svc/worktrees/r1/missing.txt: No such file or directory')).toEqual([]);
    expect(read('cat: /etc/nothing: No such file or directory')).toEqual([]);
    expect(read('/bin/bash: line 1: inside.txt: Read-only file system')).toEqual([]);
  });
});
