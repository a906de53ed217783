// Shell completion offers what is in the store (issue 32): workflow names, run ids and workspace
// names, through the hidden `svc __complete` the bash, zsh and fish scripts call. A real server on
// an ephemeral port, the built CLI on PATH as `svc`, and each shell's own completion machinery
// (bash's COMP_WORDS, zsh's _svc with its builtins read back, fish's `complete -C`).
import { execFile } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN, svcEnv } from '../helpers/cli.js';
import { makeRepository } from '../helpers/git.js';
import { registerWorkspace } from '../helpers/registered-project.js';
import { cleanupAll, projectWithWorkflows, startRun, startServer, tempDir, waitForRun } from '../helpers/runs.js';
import type { TestServer } from '../helpers/server.js';

const exec = promisify(execFile);

let server: TestServer;
let project: string;
let runIds: string[];
let env: Record<string, string>;
let scripts: Record<'bash' | 'zsh' | 'fish', string>;

beforeAll(async () => {
  server = await startServer({ socket: true });
  project = await projectWithWorkflows([
    { name: 'deploy-docs', description: 'd', nodes: [{ id: 'a', bash: 'true' }] },
    { name: 'lint-all', description: 'l', nodes: [{ id: 'a', bash: 'true' }] },
  ]);
  runIds = [];
  for (let i = 0; i < 2; i++) runIds.push((await waitForRun(server, await startRun(server, 'lint-all', { message: '', cwd: project }))).id);
  for (const name of ['alpha', 'beta']) {
    const dir = join(await tempDir('svc-complete-'), name);
    await mkdir(dir);
    makeRepository(dir);
    await registerWorkspace(server, dir);
  }
  // `svc` on PATH is the built CLI, as an installed one would be.
  const bin = await tempDir('svc-complete-bin-');
  await writeFile(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${SVC_BIN}" "$@"\n`);
  await chmod(join(bin, 'svc'), 0o755);
  env = svcEnv({ PATH: `${bin}:${process.env.PATH ?? ''}`, SVC_HOME: server.home, SVC_URL: server.url });
  scripts = { bash: '', zsh: '', fish: '' };
  for (const shell of ['bash', 'zsh', 'fish'] as const) scripts[shell] = (await runCli(['completion', shell])).stdout;
}, 60_000);
afterAll(cleanupAll);

const quoted = (words: string[]) => words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');

/** Sources the bash script and calls `_svc` as bash's completion would for the words typed (the last is being completed). */
async function bash(typed: string[], extraEnv: Record<string, string> = {}): Promise<string[]> {
  const program = `eval "$SCRIPT" || exit 9
COMP_WORDS=(${quoted(typed)}); COMP_CWORD=${typed.length - 1}
_svc svc "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', program], {
    env: { ...env, ...extraEnv, SCRIPT: scripts.bash },
    cwd: project,
    timeout: 20_000,
  });
  return stdout.split('\n').filter(Boolean).sort();
}

/** Loads the zsh script and calls `_svc` with `words`/`CURRENT`/`PREFIX` set, its completion builtins printing what they are given. */
async function zsh(typed: string[]): Promise<string[]> {
  const program = `compdef() { :; }
compadd() { [[ $1 == -a ]] && print -rl -- "\${(@P)2}"; }
_describe() { local e; for e in "\${(@P)4}"; do print -r -- "\${e%%:*}"; done; }
eval "$SCRIPT"
words=(${quoted(typed)}); CURRENT=${typed.length}; PREFIX=${quoted([typed.at(-1)!])}
_svc`;
  const { stdout } = await exec('zsh', ['-f', '-c', program], { env: { ...env, SCRIPT: scripts.zsh }, cwd: project, timeout: 20_000 });
  return stdout
    .split('\n')
    .filter(Boolean)
    .filter((w) => !typed.at(-1) || w.startsWith(typed.at(-1)!))
    .sort();
}

/** fish's own completion of the command line typed (`complete -C`), the script sourced. */
async function fish(line: string): Promise<string[]> {
  const { stdout } = await exec('fish', ['--no-config', '-c', `source (printf '%s' "$SCRIPT" | psub); complete -C ${quoted([line])}`], {
    env: { ...env, SCRIPT: scripts.fish },
    cwd: project,
    timeout: 20_000,
  });
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((entry) => entry.split('\t')[0]!)
    .sort();
}

describe('svc __complete', () => {
  it('prints workflow names, run ids or workspace names, one a line, those starting with the prefix', async () => {
    const ask = async (...args: string[]) => (await runCli(['__complete', ...args], { env, cwd: project })).stdout.split('\n').filter(Boolean);
    expect(await ask('workflows')).toEqual(expect.arrayContaining(['deploy-docs', 'lint-all']));
    expect(await ask('workflows', 'dep')).toEqual(['deploy-docs']);
    expect((await ask('runs')).sort()).toEqual([...runIds].sort());
    expect(await ask('workspaces')).toEqual(['alpha', 'beta']);
    expect(await ask('workspaces', 'b')).toEqual(['beta']);
    // Not in the help; an unknown kind is a usage error, never a stack.
    expect((await runCli(['--help'], { env })).stdout).not.toContain('__complete');
    expect((await runCli(['__complete', 'colours'], { env })).code).toBe(2);
  });

  it('prints nothing and exits 0 when no value can be read (a server named that does not answer)', async () => {
    const result = await runCli(['--url', 'http://127.0.0.1:1', '__complete', 'runs'], { env });
    expect(result).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('the completion scripts call it', () => {
  it('bash: workflow names for `svc run`, run ids for a run argument and --from, workspace names for a workspace and --workspace', async () => {
    expect(await bash(['svc', 'run', ''])).toEqual(expect.arrayContaining(['deploy-docs', 'lint-all']));
    expect(await bash(['svc', 'workflow', 'show', 'li'])).toEqual(['lint-all']);
    expect(await bash(['svc', 'runs', 'show', ''])).toEqual([...runIds].sort());
    expect(await bash(['svc', 'bench', 'compare', runIds[0]!, ''])).toEqual([...runIds].sort());
    expect(await bash(['svc', 'run', 'lint-all', '--from', ''])).toEqual([...runIds].sort());
    expect(await bash(['svc', 'workspace', 'show', ''])).toEqual(['alpha', 'beta']);
    expect(await bash(['svc', 'run', 'lint-all', '--workspace', 'a'])).toEqual(['alpha']);
    expect(await bash(['svc', 'conversation', 'new', '-w', ''])).toEqual(['alpha', 'beta']);
    // The message after the workflow, and a value of an option with nothing to offer, get no store values.
    expect(await bash(['svc', 'run', 'lint-all', ''])).not.toContain('alpha');
    expect(await bash(['svc', 'run', '--cwd', ''])).toEqual([]);
    // Flags and commands as before; a server named with --url is the one asked.
    expect(await bash(['svc', 'runs', 'show', '--'])).toEqual(['--help']);
    expect(await bash(['svc', '--url', server.url, 'workspace', 'rm', 'b'], { SVC_URL: 'http://127.0.0.1:1' })).toEqual(['beta']);
  });

  it('zsh: the same values through compadd', async () => {
    expect(await zsh(['svc', 'run', ''])).toEqual(expect.arrayContaining(['deploy-docs', 'lint-all']));
    expect(await zsh(['svc', 'runs', 'show', ''])).toEqual([...runIds].sort());
    expect(await zsh(['svc', 'workspace', 'show', 'al'])).toEqual(['alpha']);
    expect(await zsh(['svc', 'run', 'lint-all', '--workspace', ''])).toEqual(['alpha', 'beta']);
    expect(await zsh(['svc', 'config', ''])).toEqual(expect.arrayContaining(['show', 'set-model']));
  });

  it('fish: the same values through complete -C', async () => {
    expect(await fish('svc run ')).toEqual(expect.arrayContaining(['deploy-docs', 'lint-all']));
    expect(await fish('svc runs show ')).toEqual([...runIds].sort());
    expect(await fish('svc workspace show al')).toEqual(['alpha']);
    expect(await fish('svc run lint-all --workspace ')).toEqual(['alpha', 'beta']);
    expect(await fish('svc config s')).toEqual(expect.arrayContaining(['show', 'set-model']));
  });
});
