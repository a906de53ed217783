// The README's way to get the `svc` command (issue 32): `npm link` in the checkout puts `svc` on
// PATH, and it runs from any directory — here into a temporary npm prefix, so the machine's global
// folder is untouched. (`--ignore-scripts`: the build `npm link` would repeat is `npm install`'s,
// already done, and rebuilding dist/ would pull it from under the tests running beside this one.)
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { cleanupAll, tempDir } from '../helpers/runs.js';
import { svcEnv } from '../helpers/cli.js';

const checkout = fileURLToPath(new URL('../..', import.meta.url));
afterAll(() => cleanupAll());

it('npm link puts svc on PATH: it runs from any directory, named apart from the unrelated npm package `svc`', async () => {
  const pkg = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string> };
  expect(pkg.name).not.toBe('svc');
  expect(Object.keys(pkg.bin)).toEqual(['svc']);
  const prefix = await tempDir('svc-npm-prefix-');
  const link = spawnSync('npm', ['link', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: checkout,
    env: svcEnv({ npm_config_prefix: prefix }),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(link.status, link.stderr).toBe(0);
  expect(realpathSync(join(prefix, 'bin', 'svc'))).toBe(realpathSync(join(checkout, 'bin', 'svc.mjs')));
  const elsewhere = await tempDir('svc-elsewhere-');
  const env = svcEnv({ PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH ?? ''}`, SVC_HOME: join(elsewhere, 'home') });
  const version = spawnSync('svc', ['--version'], { cwd: elsewhere, env, encoding: 'utf8' });
  expect(version.stdout.trim()).toBe(pkg.version);
  // And svc mcp --print-config now names it plainly: the `svc` on PATH is this installation.
  const config = spawnSync('svc', ['mcp', '--print-config', 'codex'], { cwd: elsewhere, env, encoding: 'utf8' });
  expect(config.stdout).toContain('command = "svc"\n');
});
