// Parse as bash parses (docs/decisions.md, "Parse as bash parses"): a script that takes values from
// outside is read by a maintained bash parser too, and refused where svc's scanner reads it
// differently from bash — each form below was one where svc saw quoted text, a comment or a
// here-document body and bash ran the next lines, with `eval` of an outside value in them. Run with
// the checks off, each really runs a hostile value; with them on, validation refuses it and says where.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bashErrors } from '../helpers/bash-node.js';
import { runCli } from '../helpers/cli.js';
import { cleanupAll, projectWithWorkflows, startRun, tempDir, waitForRun } from '../helpers/runs.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { loadBashParser } from '../../src/workflows/shell/bash-parser.js';

// The check made whole, as before a script runs: with the bash parser's reading.
beforeAll(() => loadBashParser());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-parse-as-bash-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
afterAll(async () => {
  await killAllServes();
  await cleanupAll();
});

const PAYLOAD = 'touch MARKER';

/** What bash does with the script and a hostile `$ARGUMENTS`, no check in the way: whether the payload ran. */
function runsPayload(script: string): boolean {
  spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ARGUMENTS: PAYLOAD },
    stdio: 'ignore',
    timeout: 5000,
  });
  return readdirSync(dir).includes('MARKER');
}

const MISREAD: Array<[string, string, RegExp]> = [
  ['an apostrophe in a comment inside an array', 'files=(a # don\'t\n)\neval "$ARGUMENTS"\n', /differently from bash at line 3 col 1 \(eval\)/],
  ["a here-document delimiter written $'EOF'", 'cat <<$\'EOF\' >/dev/null\nbody\nEOF\neval "$ARGUMENTS"\n', /here-document delimiter \$'EOF' at line 1 col 7/],
  [
    'a here-document delimiter continued with \\-newline',
    'cat <<E\\\nOF >/dev/null\nbody\nEOF\neval "$ARGUMENTS"\n',
    /here-document delimiter E\\ OF at line 1 col 7/,
  ],
  ['a quote never closed', 'echo "$ARGUMENTS\neval $ARGUMENTS\n', /cannot read line 2 col 16 \(a missing "\) as bash would/],
  ['a NUL byte', 'echo "$ARGUMENTS"\0; eval "$ARGUMENTS"\n', /NUL byte/],
];

describe('scripts svc used to read differently from bash', () => {
  it.each(MISREAD)('%s: refused, saying where', (_what, script, message) => {
    expect(bashErrors(script).join('\n')).toMatch(message);
  });

  it.each(MISREAD.filter(([what]) => !['a quote never closed', 'a NUL byte'].includes(what)))(
    '%s: really runs the value, so the refusal is needed',
    (_what, script) => {
      expect(runsPayload(script)).toBe(true);
    },
  );
});

describe('scripts bash and svc read alike', () => {
  const SAME = [
    'x=$(cat <<EOF\nhello\nEOF\n)\nprintf "%s\\n" "$x" "$ARGUMENTS"\n',
    'cat <<\'EOF\' > notes.txt\n$ARGUMENTS $(touch MARKER)\nEOF\nwhile read -r line; do echo "$line"; done < notes.txt\n',
    'cat <<-"EOF"\n\t$ARGUMENTS\n\tEOF\n',
    'if [ -n "$ARGUMENTS" ]; then\n  printf "%s\\n" "$ARGUMENTS" > out.txt\nfi\ncase "$x.output" in *) echo hi;; esac\nf() { local a="$1"; echo "$a"; }\nf "$ARGUMENTS"\n',
    'time ls >/dev/null; ! grep -q a /dev/null; coproc cat </dev/null; exec 3>&1; [[ -z $ARGUMENTS ]] && echo none\n',
    'x=`echo "$ARGUMENTS"`; a=( "$ARGUMENTS" one ); declare -A m; m[k]="$ARGUMENTS"; export FOO=1; unset FOO\n(cd /tmp && ls) & wait\n{ echo a; echo b; } | sort\n',
  ];
  it.each(SAME)('accepts %j', (script) => {
    expect(bashErrors(script)).toEqual([]);
    runsPayload(script);
    expect(readdirSync(dir)).not.toContain('MARKER');
  });
});

describe('in a fresh process', () => {
  it('svc workflow validate loads the parser before it answers, and refuses a misread script saying where', async () => {
    const file = join(dir, 'misread.yaml');
    writeFileSync(
      file,
      ['name: misread', 'description: d', 'nodes:', '  - id: b', '    bash: |', "      files=(a # don't", '      )', '      eval "$ARGUMENTS"', ''].join('\n'),
    );
    const result = await runCli(['workflow', 'validate', file], { cwd: dir });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/svc reads this script differently from bash at line 3 col 1 \(eval\)/);
  });
});

describe('a run', () => {
  it('on a fresh server: a workflow the parser refuses may be listed, but the run fails with the refusal before its script runs', async () => {
    const project = await projectWithWorkflows([{ name: 'misread', nodes: [{ id: 'b', bash: 'files=(a # don\'t\n)\neval "$ARGUMENTS"\n' }] }]);
    // Its own process: listing reads with the scanner alone; the run is checked again with the parser
    // (at its launch, or at the latest before the node's script runs), and fails saying where.
    const server = await spawnServe({ home: await tempDir('svc-parse-home-'), cwd: project });
    const run = await waitForRun(server, await startRun(server, 'misread', { message: 'touch MARKER', cwd: project }));
    expect(run.status, JSON.stringify({ error: run.error, nodes: run.nodes })).toBe('failed');
    expect(run.error + JSON.stringify(run.nodes)).toMatch(/svc reads this script differently from bash at line 3 col 1 \(eval\)/);
    expect(readdirSync(project)).not.toContain('MARKER');
    await server.stop();
  });
});
