import { describe, expect, it } from 'vitest';
import { checkCloneUrl, normalizeCloneUrl, repositoryName } from '../../src/workspaces/clone-source.js';

describe('clone URLs', () => {
  it.each(['https://example.com/acme/widgets.git', 'ssh://git@example.com/acme/widgets.git', 'git@example.com:acme/widgets.git', 'file:///tmp/repo.git'])(
    'accepts %s',
    (url) => {
      expect(checkCloneUrl(url)).toEqual({ ok: true, url });
    },
  );

  it.each([
    ['--upload-pack=touch /tmp/pwned', 'must not start with "-"'],
    ['-c core.sshCommand=x', 'must not start with "-"'],
    ['http://example.com/repo.git', 'scheme http: is not allowed'],
    ['ext::sh -c touch% /tmp/pwned', 'white space'],
    ['ext::sh', 'scheme ext: is not allowed'],
    ['/tmp/repo', 'must be https://'],
    ['ssh://-oProxyCommand=x/repo', 'host must not start with "-"'],
    ['', 'empty'],
  ])('refuses %s', (url, reason) => {
    const check = checkCloneUrl(url);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('names a workspace after its repository', () => {
    expect(repositoryName('https://example.com/acme/widgets.git')).toBe('widgets');
    expect(repositoryName('git@example.com:acme/tools.git')).toBe('tools');
    expect(repositoryName('file:///tmp/x/bare-repo')).toBe('bare-repo');
  });

  it('sees two spellings of one repository as one', () => {
    expect(normalizeCloneUrl('https://Example.com/acme/widgets.git/')).toBe(normalizeCloneUrl('https://example.com/acme/widgets'));
    expect(normalizeCloneUrl('git@Example.com:acme/widgets.git')).toBe('git@example.com:acme/widgets');
  });
});
