// `svc completion bash|zsh|fish`: scripts generated from the command tree, exercised in a real
// bash; zsh and fish are syntax-checked when installed. The copies in completions/ must be current.
import { execFile, execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, SVC_BIN } from '../helpers/cli.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' } as const;
type Shell = keyof typeof FILES;

const scripts = {} as Record<Shell, string>;
beforeAll(async () => {
  for (const shell of Object.keys(FILES) as Shell[]) {
    const result = await runCli(['completion', shell]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    scripts[shell] = result.stdout;
  }
});

function installed(shell: string): boolean {
  try {
    execFileSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Sources the bash script in a real bash, then calls `_svc` as bash's completion would, with
 * COMP_WORDS / COMP_CWORD set for the words typed so far (the last one is being completed).
 */
async function completeInBash(typed: string[]): Promise<string[]> {
  const words = typed.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const program = `source <("$SVC_NODE" "$SVC_BIN" completion bash) || exit 9
COMP_WORDS=(${words}); COMP_CWORD=${typed.length - 1}; COMP_LINE="\${COMP_WORDS[*]}"; COMP_POINT=\${#COMP_LINE}
_svc svc "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', program], {
    env: { PATH: process.env.PATH ?? '', SVC_NODE: process.execPath, SVC_BIN },
    timeout: 20_000,
  });
  return stdout.split('\n').filter(Boolean);
}

describe('svc completion bash', () => {
  it('prints a script that, sourced in bash, registers the svc completion', async () => {
    expect(scripts.bash).toMatch(/^# bash completion for svc/);
    const { stdout } = await run('bash', ['--norc', '--noprofile', '-c', 'source "$1" && complete -p svc', 'bash', `${ROOT}completions/svc.bash`], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe('complete -F _svc svc');
    const piped = await run('bash', ['--norc', '--noprofile', '-c', 'source <("$SVC_NODE" "$SVC_BIN" completion bash) && complete -p svc'], {
      env: { PATH: process.env.PATH ?? '', SVC_NODE: process.execPath, SVC_BIN },
      timeout: 20_000,
    });
    expect(piped.stdout.trim()).toBe('complete -F _svc svc');
    await expect(run('bash', ['-n', `${ROOT}completions/svc.bash`])).resolves.toBeDefined();
  });

  it('completes command names: `svc con` offers config', async () => {
    expect(await completeInBash(['svc', 'con'])).toEqual(['config']);
    const all = await completeInBash(['svc', '']);
    for (const command of ['serve', 'status', 'openapi', 'update-check', 'config', 'completion', 'help']) expect(all).toContain(command);
    expect(await completeInBash(['svc', 'ser'])).toEqual(['serve']);
  });

  it('completes subcommands: `svc config ` offers show, the setters and remove-acp', async () => {
    const offered = await completeInBash(['svc', 'config', '']);
    expect(offered).toContain('show');
    expect(offered).toContain('set-model');
    expect(offered.filter((w) => !w.startsWith('-')).sort()).toEqual(['remove-acp', 'set-acp', 'set-acp-env', 'set-memory', 'set-model', 'set-price', 'show']);
    expect((await completeInBash(['svc', 'config', 's'])).sort()).toEqual(['set-acp', 'set-acp-env', 'set-memory', 'set-model', 'set-price', 'show']);
    expect((await completeInBash(['svc', 'config', 'se'])).sort()).toEqual(['set-acp', 'set-acp-env', 'set-memory', 'set-model', 'set-price']);
    expect(await completeInBash(['svc', 'config', 'set-p'])).toEqual(['set-price']);
  });

  it('completes argument choices and options, and skips option values', async () => {
    expect((await completeInBash(['svc', 'completion', ''])).filter((w) => !w.startsWith('-'))).toEqual(['bash', 'zsh', 'fish']);
    expect(await completeInBash(['svc', 'serve', '--p'])).toEqual(['--port']);
    expect(await completeInBash(['svc', '--url', 'http://x', 'con'])).toEqual(['config']);
    expect(await completeInBash(['svc', '--json', 'config', 'sh'])).toEqual(['show']);
    expect(await completeInBash(['svc', 'nonsense', ''])).toEqual(expect.arrayContaining(['config']));
  });
});

describe('svc completion zsh', () => {
  it('is a #compdef script for svc describing every command (syntax-checked when zsh is installed)', async () => {
    const script = scripts.zsh;
    expect(script.startsWith('#compdef svc\n')).toBe(true);
    expect(script).toContain('compdef _svc svc');
    expect(script).toMatch(/"config"\) entries=\([^)]*'show:print the configuration'/);
    expect(script).toMatch(/"config"\) entries=\([^)]*'set-model:set the model an assistant uses'/);
    expect(script).toMatch(/""\) entries=\([^)]*'serve:/);
    if (installed('zsh')) {
      await expect(run('zsh', ['-n', `${ROOT}completions/_svc`])).resolves.toBeDefined();
    } else {
      // No zsh here: check the structure a parser would: balanced function, case and quotes.
      expect(script.match(/^_svc\(\) \{$/gm)).toHaveLength(1);
      expect(script.match(/\bcase\b/g)?.length).toBe(script.match(/\besac\b/g)?.length);
      for (const line of script.split('\n').filter((l) => l.includes('entries=('))) {
        expect(line.trim(), line).toMatch(/^("[^"]*"|\*)\) entries=\(.*\) ;;$/);
        expect((line.replace(/'\\''/g, '').match(/'/g) ?? []).length % 2, line).toBe(0);
      }
    }
  });
});

describe('svc completion fish', () => {
  it('declares completions for svc and every command (syntax-checked when fish is installed)', async () => {
    const script = scripts.fish;
    expect(script).toContain('complete -c svc -f');
    expect(script).toContain("complete -c svc -n '__svc_path_is ' -a 'config' -d 'show or change configuration'");
    expect(script).toContain("complete -c svc -n '__svc_path_is config' -a 'show' -d 'print the configuration'");
    expect(script).toContain("complete -c svc -n '__svc_path_is config' -a 'set-model'");
    expect(script).toContain("complete -c svc -n '__svc_path_is completion' -a 'bash'");
    if (installed('fish')) {
      await expect(run('fish', ['-n', `${ROOT}completions/svc.fish`])).resolves.toBeDefined();
    } else {
      expect(script.match(/^function __svc_path_is$/gm)).toHaveLength(1);
      const opens = script.match(/^\s*(function|for|if|switch)\b/gm)?.length ?? 0;
      const ends = script.match(/^\s*end$/gm)?.length ?? 0;
      expect(ends).toBe(opens);
      for (const line of script.split('\n').filter((l) => l.startsWith('complete '))) {
        expect((line.replace(/'\\''/g, '').match(/'/g) ?? []).length % 2, line).toBe(0);
      }
    }
  });
});

describe('completions/ in the repository', () => {
  it.each(Object.entries(FILES))('completions/%s… is exactly what `svc completion` generates (run `npm run completions`)', async (shell, file) => {
    const committed = await readFile(`${ROOT}completions/${file}`, 'utf8');
    expect(committed, `completions/${file} is stale: run \`npm run build && npm run completions\``).toBe(scripts[shell as Shell]);
  });
});
